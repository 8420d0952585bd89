// A gateway paused while its reaper waits on the database: the idle deadline it judges must allow
// the pause, though the pause began after the pass took its allowance. The pause is made here by
// blocking the gateway's thread (as a SIGSTOP or a long GC would) just before the transaction that
// judges idleness begins, with the session 1.5 s short of idle: Postgres's now() is the
// transaction's start, so it then reads the clock after the pause.
// A full test run on 2026-12-06 saw this end a session as idle whose client's request was waiting
// in the paused gateway's socket (farm-chaos).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFarm, type Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { sleep, waitFor } from '../helpers/wait.js';

let farm: Farm;
beforeAll(async () => {
  // Liveness is not what this is about: the worker shares the blocked thread.
  farm = await startFarm({ SIMFLEET_HOST_TIMEOUT_MS: '10000', SIMFLEET_REAPER_INTERVAL_MS: '100' });
  await farm.addWorker(1);
});
afterAll(() => farm?.stop());

// The reaper's pass judges the queue first, then idleness in a transaction of its own.
const QUEUE_QUERY = "WHERE state = 'queued' AND";
const PAUSE_MS = 3000;

it('does not end a session idle on a clock that ran through a pause falling inside the reaper pass', async () => {
  const agent = await farm.token('agent', 'pause');
  const id = await settledSession(agent, { idleTimeoutSeconds: 5 });
  const direct = new pg.Client({ connectionString: farm.db.url });
  await direct.connect();
  const original = pg.Client.prototype.query;
  let queueJudged = false;
  let paused = false;
  try {
    // 3.5 s of its 5 s gone; a 3 s pause before the next idle query takes it to 6.5 s, while with
    // the pause allowed it has until about 8 s.
    await direct.query(`UPDATE sessions SET last_activity_at = now() - interval '3.5 seconds' WHERE id = $1`, [id]);
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const sql = typeof args[0] === 'string' ? args[0] : '';
      if (sql.includes(QUEUE_QUERY)) queueJudged = true;
      else if (queueJudged && !paused && sql === 'BEGIN') {
        paused = true;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, PAUSE_MS); // the whole thread stops
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    await waitFor('the reaper to reach its idle judgement', () => paused || undefined, 5000);
    await sleep(600); // real time: the gateway's thread itself was stopped; several passes after the pause, each with it allowed
    const s = (await direct.query(`SELECT state, end_reason FROM sessions WHERE id = $1`, [id])).rows[0];
    expect(s, JSON.stringify(s)).toMatchObject({ state: 'ready' });
    // The allowance is the pause, no more: with no activity the session ends idle soon after.
    const ended = await waitFor(
      'ended idle',
      async () => {
        const r = (await direct.query(`SELECT state, end_reason FROM sessions WHERE id = $1`, [id])).rows[0];
        return r.state === 'ended' ? r : undefined;
      },
      5000,
    );
    expect(ended.end_reason).toBe('idle');
  } finally {
    pg.Client.prototype.query = original;
    await direct.end();
  }
});
