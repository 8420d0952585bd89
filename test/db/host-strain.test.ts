// Host strain in Postgres, on the real server: a heartbeat marks its host strained only when it says
// so (and only for the connection that owns the host), and dashboards hear of a host becoming
// strained once per window, not of every heartbeat that keeps it so (the farm_host trigger, 0008).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.js';
import * as hosts from '../../server/db/repositories/hosts.js';
import type { TestDatabase } from '../helpers/db.js';
import { migratedDatabase } from '../helpers/migrated-db.js';

let tdb: TestDatabase;
let db: Database;
beforeAll(async () => {
  ({ tdb, db } = await migratedDatabase('host-strain'));
  await hosts.upsertHostOnHello(db, {
    id: 'h1',
    name: 'h1',
    os: 'linux',
    arch: 'x64',
    version: 't',
    protocolVersion: 1,
    backends: [],
    gatewayId: 'g',
    connectionId: 'c1',
    tokenId: null,
  });
});
afterAll(async () => {
  await db?.close();
  await tdb?.drop();
});

const strainedAt = async () => (await hosts.getHost(db, 'h1'))!.strained_at;
const hostEvents = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM farm_events WHERE kind = 'host' AND subject = 'h1'`)).rows[0]!.n;

it("marks a host strained from its own connection's heartbeats only, with one farm event per window", async () => {
  const before = await hostEvents();
  expect(await hosts.recordHeartbeat(db, 'h1', 'c1')).toBe(true);
  expect(await strainedAt()).toBeNull();
  expect(await hostEvents()).toBe(before); // heartbeats write no events
  // A connection that no longer owns the host marks nothing.
  expect(await hosts.recordHeartbeat(db, 'h1', 'stale', true)).toBe(false);
  expect(await strainedAt()).toBeNull();
  expect(await hosts.countStrainedHosts(db, 300_000)).toBe(0);
  // Strained: marked, counted, and dashboards told once.
  expect(await hosts.recordHeartbeat(db, 'h1', 'c1', true)).toBe(true);
  const first = await strainedAt();
  expect(first).not.toBeNull();
  expect(await hosts.countStrainedHosts(db, 300_000)).toBe(1);
  expect(await hostEvents()).toBe(before + 1);
  // Strained again within the window: the mark moves on, no new event; a calm heartbeat keeps it.
  expect(await hosts.recordHeartbeat(db, 'h1', 'c1', true)).toBe(true);
  expect((await strainedAt())!.getTime()).toBeGreaterThanOrEqual(first!.getTime());
  expect(await hosts.recordHeartbeat(db, 'h1', 'c1', false)).toBe(true);
  expect(await strainedAt()).not.toBeNull();
  expect(await hostEvents()).toBe(before + 1);
  // Once the window has passed (the mark moved back 6 minutes), it no longer counts, and the next strain is news again.
  await db.query(`UPDATE hosts SET strained_at = strained_at - interval '6 minutes' WHERE id = 'h1'`);
  expect(await hosts.countStrainedHosts(db, 300_000)).toBe(0);
  expect(await hostEvents()).toBe(before + 1);
  expect(await hosts.recordHeartbeat(db, 'h1', 'c1', true)).toBe(true);
  expect(await hosts.countStrainedHosts(db, 300_000)).toBe(1);
  expect(await hostEvents()).toBe(before + 2);
});
