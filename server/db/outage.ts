// A database outage (a restart, a network cut, a pool that cannot connect) is not a refusal: the
// same statement will succeed in a few seconds. What the farm has already done while Postgres was
// away (a device prepared, a reset finished, a forwarded command answered) must then still be
// recorded, or a session sits in `preparing` until a reaper gives up on it minutes later.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DatabaseUnavailableError, sqlState } from './database.js';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
/** admin_shutdown, crash_shutdown, cannot_connect_now. */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03']);

/** Whether an error means the database is out of reach for now, as opposed to a statement it refused. */
export function isOutage(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const state = sqlState(err);
  if (state && (state.startsWith('08') || SHUTDOWN_STATES.has(state))) return true;
  return /Connection terminated|connection .* closed|Client has encountered a connection error/i.test((err as Error | null)?.message ?? '');
}

/**
 * Runs `fn` until it succeeds, retrying through an outage (backoff 100 ms → 2 s) until `withinMs`
 * has passed; any other error, or the outage outlasting the deadline, is thrown. `fn` must be safe
 * to run twice: a commit whose acknowledgement was lost is retried.
 */
export async function throughOutage<T>(what: string, fn: () => Promise<T>, opts: { withinMs: number; logger: Logger }): Promise<T> {
  const deadline = Date.now() + opts.withinMs;
  let delay = 100;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isOutage(err) || Date.now() + delay > deadline) throw err;
      if (attempt === 1) opts.logger.warn({ what, err: (err as Error).message }, 'database unavailable; retrying until it is back');
      await sleep(delay);
      delay = Math.min(2000, delay * 2);
    }
  }
}
