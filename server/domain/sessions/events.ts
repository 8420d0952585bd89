// Session changes, fanned out to this gateway's long-polls and stream watchers. Every change is
// NOTIFYed inside the transaction that made it (delivered at commit, to every gateway), so a
// watcher on any gateway hears about a change made on any other.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';

export interface SessionNotice {
  id: string;
  seq: number;
  kind: 'session' | 'expiring';
  reason?: 'idle' | 'ttl';
  deadline?: string;
}

export class SessionEvents {
  private readonly emitter = new EventEmitter();
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {
    this.emitter.setMaxListeners(0);
  }

  async start(): Promise<void> {
    this.unlisten = await this.db.listen('sf_session', (payload) => {
      try {
        const notice = JSON.parse(payload) as SessionNotice;
        this.emitter.emit(notice.id, notice);
      } catch (err) {
        this.logger.warn({ err, payload }, 'unreadable session notification');
      }
    });
    // Notices sent while the listener was reconnecting are lost: tell everyone to re-read.
    this.db.onReconnect(() => this.emitter.emit('*resync'));
  }

  /** Calls back on every notice for the session, and on a resync (with no notice). */
  subscribe(sessionId: string, fn: (notice: SessionNotice | undefined) => void): () => void {
    const resync = () => fn(undefined);
    this.emitter.on(sessionId, fn);
    this.emitter.on('*resync', resync);
    return () => {
      this.emitter.off(sessionId, fn);
      this.emitter.off('*resync', resync);
    };
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
  }
}
