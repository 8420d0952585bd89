// Priority ageing in the queue's SQL: a request climbs one class per ageing period of waiting, so a
// background request that has waited two periods goes before a fresh interactive one, while one that
// has waited a single period (up to ci) still goes after it. The policy's TypeScript twin is tested
// in unit/placement.test.ts; here the class is computed by Postgres (queuePosition, and lockQueued,
// which picks each team's oldest requests per effective class) on the real server.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.js';
import * as sessions from '../../server/db/repositories/sessions.js';
import { ensureTeam } from '../../server/db/repositories/teams.js';
import { plan } from '../../server/domain/sessions/placement.js';
import type { TestDatabase } from '../helpers/db.js';
import { migratedDatabase } from '../helpers/migrated-db.js';

const AGING_MS = 60_000;
const DEVICE = { id: 'h.fake-1', platform: 'web', model: 'Fake Phone', os: 'fake 1.0', labels: [] as string[] };

let tdb: TestDatabase;
let db: Database;
beforeAll(async () => {
  ({ tdb, db } = await migratedDatabase('queue-ageing'));
  await ensureTeam(db, 'alpha');
});
afterAll(async () => {
  await db?.close();
  await tdb?.drop();
});

/** A queued request of team alpha that has waited `waitedMs` (its created_at moved back by that). */
async function queued(priority: 'interactive' | 'ci' | 'background', waitedMs: number): Promise<sessions.SessionRow> {
  const row = await sessions.insertSession(db, {
    id: `ses_${priority}_${waitedMs}`,
    team: 'alpha',
    tokenId: null,
    platform: 'web',
    requirements: {},
    app: null,
    priority,
    ttlSeconds: 60,
    idleTimeoutSeconds: 60,
    waitSeconds: 600,
    idempotencyKey: null,
    requestHash: 'h',
  });
  const { rows } = await db.query<sessions.SessionRow>(
    `UPDATE sessions SET created_at = now() - ($2::double precision * interval '1 millisecond') WHERE id = $1 RETURNING *`,
    [row.id, waitedMs],
  );
  return rows[0]!;
}

/** One placement run on one free device, as the placer runs it: the rows lockQueued hands over, and plan's pick. */
async function placeOne(): Promise<{ considered: string[]; placed: string | undefined }> {
  return db.transaction(async (tx) => {
    const rows = await sessions.lockQueued(tx, [DEVICE], 1, AGING_MS);
    const requests = rows.map((s) => ({
      id: s.id,
      team: s.team,
      priority: s.priority,
      createdAtMs: new Date(s.created_at).getTime(),
      platform: s.platform,
      requirements: s.requirements,
    }));
    const [pick] = plan(requests, [DEVICE], new Map(), Date.now(), AGING_MS);
    if (pick) await sessions.endSession(tx, pick.sessionId, 'released', 'placed by the test');
    return { considered: rows.map((r) => r.id).sort(), placed: pick?.sessionId };
  });
}

it('places a background request that waited two ageing periods before a fresh interactive one, and one that waited one period after it', async () => {
  const fresh = await queued('interactive', 0);
  const climbedOnce = await queued('background', 1.5 * AGING_MS); // background → ci
  const climbedTwice = await queued('background', 2.5 * AGING_MS); // background → ci → interactive

  // Not first come, first served: the one-period request is older than the interactive one, yet behind it.
  expect(await sessions.queuePosition(db, climbedTwice, AGING_MS)).toBe(1);
  expect(await sessions.queuePosition(db, fresh, AGING_MS)).toBe(2);
  expect(await sessions.queuePosition(db, climbedOnce, AGING_MS)).toBe(3);

  // With one free device lockQueued hands over one request per effective class: the twice-climbed
  // request shares the interactive class with the fresh one and, older, is the one taken.
  expect(await placeOne()).toEqual({ considered: [climbedOnce.id, climbedTwice.id].sort(), placed: climbedTwice.id });
  expect(await placeOne()).toEqual({ considered: [climbedOnce.id, fresh.id].sort(), placed: fresh.id });
  expect(await placeOne()).toEqual({ considered: [climbedOnce.id], placed: climbedOnce.id });
});
