// One viewer's live screen: the newest frame as a small JPEG each time the screen changes, at most
// fps a second. A viewer whose socket is backed up skips frames rather than queueing them (the
// newest is always the one worth sending), and the stream closes when the session ends.
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import type { Database } from '../../db/database.js';
import { getSession, type SessionRow } from '../../db/repositories/sessions.js';
import { ApiError } from '../../errors.js';
import type { SessionPerception } from '../sessions/perception.js';

const WAIT_MS = 10_000;
const RETRY_MS = 500;
/** Past this much unsent, a frame is skipped: a slow viewer sees fewer frames, never older ones. */
const BACKED_UP_BYTES = 512 * 1024;

/** The part of a WebSocket the live screen uses. */
export interface LiveSocket {
  readonly readyState: number;
  readonly OPEN: number;
  readonly bufferedAmount: number;
  send(data: string | Buffer, opts: { binary: boolean }): void;
  close(code: number, reason: string): void;
}

export interface LiveScreenDeps {
  perception: SessionPerception;
  db: Database;
  logger: Logger;
}

export function runLiveScreen(
  deps: LiveScreenDeps,
  initial: SessionRow,
  socket: LiveSocket,
  opts: { fps: number; quality: number; scale: number },
): () => void {
  let stopped = false;
  const minGapMs = 1000 / opts.fps;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  void (async () => {
    let row = initial;
    let after = 0;
    while (!stopped && socket.readyState === socket.OPEN) {
      const t0 = performance.now();
      try {
        if (row.state !== 'ready') {
          row = await waitUntilReady(deps, row, () => stopped);
          if (row.state === 'ended') return socket.close(1000, 'SESSION_ENDED');
          continue;
        }
        const frame = await deps.perception.liveFrame(row, { after, waitMs: WAIT_MS, scale: opts.scale, quality: opts.quality });
        if (frame.seq > after) {
          after = frame.seq;
          if (socket.bufferedAmount < BACKED_UP_BYTES) send(socket, frame);
        }
      } catch (err) {
        const fresh = await getSession(deps.db, row.id).catch(() => undefined);
        if (!fresh || fresh.state === 'ended') {
          socket.close(1000, 'SESSION_ENDED');
          return;
        }
        row = fresh;
        if (!(err instanceof ApiError) || err.code !== 'SESSION_NOT_READY')
          deps.logger.debug({ sessionId: row.id, err: (err as Error).message }, 'live screen frame failed; retrying');
        await sleep(RETRY_MS);
        continue;
      }
      await sleep(Math.max(0, minGapMs - (performance.now() - t0)));
    }
  })();
  return () => {
    stopped = true;
  };
}

function send(socket: LiveSocket, frame: Schemas['LiveImage']): void {
  const jpeg = Buffer.from(frame.image, 'base64');
  const header: Schemas['LiveFrame'] = {
    type: 'frame',
    seq: frame.seq,
    at: frame.at,
    width: frame.width,
    height: frame.height,
    scale: frame.scale,
    bytes: jpeg.length,
  };
  socket.send(JSON.stringify(header), { binary: false });
  socket.send(jpeg, { binary: true });
}

/** A queued or preparing session has no screen yet: wait for it to be ready (or end). */
async function waitUntilReady(deps: LiveScreenDeps, row: SessionRow, stopped: () => boolean): Promise<SessionRow> {
  for (;;) {
    if (stopped()) return row;
    const fresh = await getSession(deps.db, row.id);
    if (!fresh || fresh.state === 'ended' || fresh.state === 'ready') return fresh ?? row;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
