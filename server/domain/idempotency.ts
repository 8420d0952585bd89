// Requests answered once. A client that lost the answer to an action (a dropped connection, a
// timeout on its side) retries with the same Idempotency-Key and gets the first run's answer; the
// device is touched once. A retry that arrives while the first run is still going waits for it.
// A first run that failed without an answer releases the key, so the retry runs afresh.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import { claimRequest, finishRequest, getRequest, releaseRequest } from '../db/repositories/requests.js';
import { ApiError } from '../errors.js';

const POLL_MS = 100;

export async function once<T>(
  db: Database,
  o: { team: string; key: string | undefined; route: string; body: unknown; waitMs: number },
  run: () => Promise<T>,
): Promise<T> {
  if (!o.key) return run();
  const hash = createHash('sha256')
    .update(`${o.route}\n${JSON.stringify(o.body)}`)
    .digest('hex');
  if (await claimRequest(db, o.team, o.key, o.route, hash)) {
    let value: T;
    try {
      value = await run();
    } catch (err) {
      await releaseRequest(db, o.team, o.key).catch(() => undefined);
      throw err;
    }
    await finishRequest(db, o.team, o.key, 200, value);
    return value;
  }
  const deadline = Date.now() + o.waitMs;
  for (;;) {
    const stored = await getRequest(db, o.team, o.key);
    if (!stored) return once(db, o, run); // the first run failed and released the key: this one runs
    if (stored.request_hash !== hash) throw new ApiError('IDEMPOTENCY_KEY_REUSED', { details: { route: stored.route } });
    if (stored.status !== null) return stored.response as T;
    if (Date.now() >= deadline)
      throw new ApiError('COMMAND_TIMEOUT', {
        message: 'the first request with this Idempotency-Key is still running',
        hint: 'retry later with the same key to get its answer',
      });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
