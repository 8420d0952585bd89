// The pause allowance as Postgres computes it (server/db/repositories/pause-allowance.ts): a clock is
// allowed the part of each of the gateway's pauses that fell after it started, and nothing for a
// pause that ended before it started. On the real server, with the clock read from now().
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.js';
import { openPostgres } from '../../server/db/postgres.js';
import { allowanceParams, deadlinePassed, type PauseAllowance } from '../../server/db/repositories/pause-allowance.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let tdb: TestDatabase;
let db: Database;

beforeAll(async () => {
  tdb = await createTestDatabase();
  db = openPostgres({ url: tdb.url, poolSize: 1, applicationName: 'pause-allowance', logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await db?.close();
  await tdb?.drop();
});

/** Whether a clock started `startedAgoS` seconds ago with a 5 s timeout has run out, given these pauses. */
async function passed(startedAgoS: number, pauses: PauseAllowance): Promise<boolean> {
  const start = `(now() - $3::double precision * interval '1 second')`;
  const { rows } = await db.query<{ passed: boolean }>(`SELECT ${deadlinePassed(start, `interval '5 seconds'`, '$1', '$2')} AS passed`, [
    ...allowanceParams(pauses),
    startedAgoS,
  ]);
  return rows[0]!.passed;
}

describe('a deadline allowed for the pauses it ran through', () => {
  it('is the plain timeout without pauses', async () => {
    expect(await passed(6, [])).toBe(true);
    expect(await passed(4, [])).toBe(false);
  });

  it('adds a pause that fell after the clock started, and not one that ended before it', async () => {
    const fourSecondsEndedOneAgo = [{ ms: 4000, endedAgoMs: 1000 }];
    expect(await passed(6, fourSecondsEndedOneAgo)).toBe(false); // 5 + 4 > 6
    expect(await passed(9.5, fourSecondsEndedOneAgo)).toBe(true); // 5 + 4 < 9.5
    expect(await passed(6, [{ ms: 4000, endedAgoMs: 7000 }])).toBe(true); // over before the clock started
  });

  it('adds only the part after the start of a pause the clock started in (heard mid-pause, read after it)', async () => {
    const tenSecondsEndedTwoAgo = [{ ms: 10_000, endedAgoMs: 2000 }]; // ran from 12 s ago to 2 s ago
    expect(await passed(6, tenSecondsEndedTwoAgo)).toBe(false); // allowed 4: 5 + 4 > 6
    expect(await passed(10, tenSecondsEndedTwoAgo)).toBe(false); // allowed 8: 13 > 10
    expect(await passed(14, tenSecondsEndedTwoAgo)).toBe(false); // allowed the whole 10: 15 > 14
    expect(await passed(16, tenSecondsEndedTwoAgo)).toBe(true);
  });

  it('sums only the pauses after the start: a later hiccup does not lend an old pause to a new clock', async () => {
    const bigThenSmall = [
      { ms: 6000, endedAgoMs: 8000 },
      { ms: 300, endedAgoMs: 1000 },
    ];
    expect(await passed(5.2, bigThenSmall)).toBe(false); // allowed 0.3: 5.3 > 5.2
    expect(await passed(5.4, bigThenSmall)).toBe(true); // the 6 s pause ended before this clock started
    // Started 11 s ago, in the 6 s pause (14 to 8 s ago): allowed its last 3 s and the 0.3, so 8.3 < 11.
    expect(await passed(11, bigThenSmall)).toBe(true);
    expect(await passed(8, [{ ms: 6000, endedAgoMs: 4000 }])).toBe(false); // allowed 4 of the 6: 9 > 8
  });
});
