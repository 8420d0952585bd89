// Placement decides in two places whether a request fits a device: in TypeScript (`matches`, for the
// plan) and in SQL (`requestFitsDevice`, to filter rows before they are locked). If they disagreed,
// a device could be locked for a request that can never take it, or a fitting request be hidden.
// This runs both over every combination of requirements and traits below, on the real Postgres.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestFitsDevice } from '../../server/db/repositories/request-fits.js';
import { matches, type FreeDevice, type QueuedRequest } from '../../server/domain/sessions/placement.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

it("the SQL condition and placement's matches agree on every request and device", async () => {
  const requests: Pick<QueuedRequest, 'platform' | 'requirements'>[] = [];
  for (const platform of ['web', 'ios'] as const)
    for (const model of [undefined, 'iPhone 15', 'Pixel 8'])
      for (const os of [undefined, '17.5'])
        for (const labels of [undefined, [], ['gpu'], ['gpu', 'eu'], ['eu']])
          requests.push({ platform, requirements: { ...(model ? { model } : {}), ...(os ? { os } : {}), ...(labels ? { labels } : {}) } });
  const devices: FreeDevice[] = [];
  let n = 0;
  for (const platform of ['web', 'ios'] as const)
    for (const model of ['iPhone 15', 'Pixel 8'])
      for (const os of ['17.5', '14'])
        for (const labels of [[], ['gpu'], ['eu', 'gpu'], ['gpu', 'gpu']]) devices.push({ id: `d${++n}`, platform, model, os, labels });
  const rows = (await db.query(
    `SELECT s.i, d.j, ${requestFitsDevice('s', 'd')} AS fits
     FROM jsonb_to_recordset($1::jsonb) AS s(i int, platform text, requirements jsonb),
          jsonb_to_recordset($2::jsonb) AS d(j int, platform text, model text, os text, labels jsonb)`,
    [JSON.stringify(requests.map((r, i) => ({ i, ...r }))), JSON.stringify(devices.map((d, j) => ({ j, ...d })))],
  )) as { i: number; j: number; fits: boolean }[];
  expect(rows.length).toBe(requests.length * devices.length);
  const disagreements = rows
    .filter((r) => r.fits !== matches(requests[r.i]!, devices[r.j]!))
    .map((r) => ({ request: requests[r.i], device: devices[r.j], sql: r.fits }));
  expect(disagreements).toEqual([]);
  // Not vacuous: both answers occur, and each requirement alone can refuse.
  const fit = rows.filter((r) => r.fits).length;
  expect(fit).toBeGreaterThan(100);
  expect(rows.length - fit).toBeGreaterThan(100);
});
