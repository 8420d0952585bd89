// One subscriber's view of a session: its state changes (from Postgres, on any gateway) and its
// device's events (from the worker, through this gateway's tap), merged in one ordered stream
// whose seq is a cursor (cursor.ts). A subscriber resuming with since gets the session's state
// if it changed and every device event after its cursor, then the live stream, with no repeats.
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import type { Database } from '../../db/database.js';
import { getSession, type SessionRow } from '../../db/repositories/sessions.js';
import type { SessionEvents, SessionNotice } from '../sessions/events.js';
import { encodeCursor, type Cursor } from './cursor.js';
import type { DeviceTap, DeviceTaps } from './device-tap.js';
import type { Outbox } from './outbox.js';

type DeviceEvent = Schemas['DeviceEvent'];

/** A device event as subscribers at one session seq receive it, rendered once for all of them. */
const rendered = new WeakMap<DeviceEvent, { s: number; event: Schemas['SessionEvent']; json?: string }>();

export interface SessionStreamDeps {
  db: Database;
  events: SessionEvents;
  taps: DeviceTaps;
  present(row: SessionRow): Promise<Schemas['Session']>;
  logger: Logger;
  /** Counts every event handed to the outbox. */
  onEvent?: () => void;
}

export class SessionStream {
  private readonly cursor: Cursor;
  private readonly fresh: boolean;
  private tap: DeviceTap | undefined;
  private detach: (() => void) | undefined;
  /** Live device events that came while the backlog was being sent. */
  private held: DeviceEvent[] | undefined;
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly deps: SessionStreamDeps,
    private readonly sessionId: string,
    private readonly out: Outbox,
    since: number | undefined,
    sinceCursor: Cursor | undefined,
  ) {
    this.fresh = since === undefined;
    this.cursor = sinceCursor ? { ...sinceCursor } : { s: -1, d: 0 };
  }

  start(initial: SessionRow): void {
    this.unsubscribe = this.deps.events.subscribe(this.sessionId, (notice) => this.serial(() => this.onNotice(notice)));
    this.serial(async () => {
      // A fresh subscriber's device baseline is the device's log now: it gets what happens next.
      if (initial.state === 'ready') await this.openTap(initial, false);
      await this.sendState();
      this.release();
    });
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.detach?.();
    this.out.stop();
  }

  private serial(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn).catch((err: unknown) => {
      this.deps.logger.warn({ err, sessionId: this.sessionId }, 'session stream failed; closing it');
      this.out.end(1011, 'INTERNAL');
    });
  }

  private async onNotice(notice: SessionNotice | undefined): Promise<void> {
    if (notice?.kind === 'expiring' && notice.seq > this.cursor.s) {
      this.cursor.s = notice.seq;
      this.push({
        type: 'expiring',
        seq: encodeCursor(this.cursor),
        at: new Date().toISOString(),
        reason: notice.reason ?? 'idle',
        deadline: notice.deadline ?? new Date().toISOString(),
      });
      return;
    }
    await this.sendState();
  }

  private async sendState(): Promise<void> {
    if (this.closed) return;
    const row = await getSession(this.deps.db, this.sessionId);
    if (!row) return;
    if (row.state === 'ready' && !this.tap) await this.openTap(row);
    if (Number(row.event_seq) > this.cursor.s) {
      this.cursor.s = Number(row.event_seq);
      this.push({ type: 'session', seq: encodeCursor(this.cursor), at: new Date().toISOString(), session: await this.deps.present(row) });
    }
    if (row.state === 'ended') {
      this.detach?.();
      this.unsubscribe?.();
      this.out.end(1000, 'SESSION_ENDED');
    }
  }

  private async openTap(row: SessionRow, release = true): Promise<void> {
    this.tap = this.deps.taps.of(row);
    this.held = [];
    this.detach = await this.tap.attach((events) => (this.held ? this.held.push(...events) : this.deliver(events)));
    if (this.fresh && this.cursor.d === 0) {
      this.cursor.d = this.tap.newest;
    } else {
      const b = await this.tap.backlog(this.cursor.d);
      if (b.missed > 0) {
        this.cursor.d = b.oldest - 1;
        this.push({
          type: 'gap',
          seq: encodeCursor({ s: Math.max(0, this.cursor.s), d: this.cursor.d }),
          at: new Date().toISOString(),
          missed: b.missed,
          oldest: encodeCursor({ s: Math.max(0, this.cursor.s), d: b.oldest }),
        });
      }
      this.deliver(b.events);
    }
    if (release) this.release();
  }

  /** Sends the live events held while the backlog (and, at the start, the state) went out. */
  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.deliver(held);
  }

  private deliver(events: DeviceEvent[]): void {
    for (const e of events) {
      if (e.seq <= this.cursor.d) continue; // already sent (a backlog and the live tap overlap)
      this.cursor.d = e.seq;
      const s = Math.max(0, this.cursor.s);
      // Subscribers at the same session seq send the same text: it is made once, not once each.
      let shared = rendered.get(e);
      if (shared?.s !== s) rendered.set(e, (shared = { s, event: { ...e, seq: encodeCursor({ s, d: e.seq }) } as Schemas['SessionEvent'] }));
      this.push(shared.event, (shared.json ??= JSON.stringify(shared.event)));
    }
  }

  private push(event: Schemas['SessionEvent'], json?: string): void {
    if (this.closed) return;
    this.deps.onEvent?.();
    this.out.push(event, json);
  }
}
