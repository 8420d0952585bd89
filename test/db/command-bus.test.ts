// Calls forwarded between gateways over Postgres NOTIFY, whose payloads stop at 8000 bytes: an
// answer longer than that travels in parts and arrives whole; one too long to send is refused with
// a coded error, never truncated. Two command buses on one real database; the worker connection is
// a stand-in that answers with whatever the test asks for.
import { VirtualClock } from '../helpers/virtual-clock.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, type Database } from '../../server/db/database.js';
import { migrate, readMigrations } from '../../server/db/migrate.js';
import { openPostgres } from '../../server/db/postgres.js';
import { upsertHostOnHello } from '../../server/db/repositories/hosts.js';
import { migrationsDir } from '../../server/paths.js';
import { ApiError } from '../../server/errors.js';
import { CommandBus } from '../../server/hub/command-bus.js';
import type { WorkerHub } from '../../server/hub/hub.js';
import type { WorkerCommand, WorkerLink } from '../../server/hub/worker-link.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
let tdb: TestDatabase;
let dbA: Database;
let dbB: Database;
let busA: CommandBus;
let busB: CommandBus;
let answer: (cmd: WorkerCommand) => Promise<Record<string, unknown> | undefined>;

beforeAll(async () => {
  tdb = await createTestDatabase();
  dbA = await openPostgres({ url: tdb.url, poolSize: 4, applicationName: 'gw-a', logger });
  dbB = await openPostgres({ url: tdb.url, poolSize: 4, applicationName: 'gw-b', logger });
  await migrate(dbA, await readMigrations(migrationsDir));
  await upsertHostOnHello(dbA, {
    id: 'host-1',
    name: 'h',
    os: 'linux',
    arch: 'x64',
    version: 't',
    protocolVersion: 4,
    backends: [],
    gatewayId: 'gw-a',
    connectionId: 'c1',
    tokenId: null,
  });
  const link = { request: (cmd: WorkerCommand) => answer(cmd) } as unknown as WorkerLink;
  busA = new CommandBus(dbA, 'gw-a', logger);
  busB = new CommandBus(dbB, 'gw-b', logger);
  await busA.attach({ linkFor: (h: string) => (h === 'host-1' ? link : undefined) } as unknown as WorkerHub);
  await busB.attach({ linkFor: () => undefined } as unknown as WorkerHub);
});
afterAll(async () => {
  await busA?.stop();
  await busB?.stop();
  await dbA?.close();
  await dbB?.close();
  await tdb?.drop();
});

const call = () => busB.call('host-1', { localId: 'web-1', epoch: 3, method: 'perception.changes', params: {} }, 5000);

describe('a call forwarded to the gateway that holds the host', () => {
  it('carries a small answer, and the command reaches the worker as sent', async () => {
    let seen: WorkerCommand | undefined;
    answer = async (cmd) => ((seen = cmd), { changed: 'no' });
    expect(await call()).toEqual({ changed: 'no' });
    expect(seen).toEqual({ type: 'call', localId: 'web-1', epoch: 3, method: 'perception.changes', params: {} });
  });

  it('carries an answer of 200 kB, in parts, byte for byte (with characters outside ASCII)', async () => {
    const big = { regions: Array.from({ length: 5000 }, (_, i) => ({ x: i, y: i * 2, note: `région ${i} — ✓` })) };
    answer = async () => big;
    expect(JSON.stringify(big).length).toBeGreaterThan(200_000);
    expect(await call()).toEqual(big);
  });

  it("refuses an answer too long to forward with a coded error, and passes the worker's own errors on", async () => {
    answer = async () => ({ blob: 'x'.repeat(2_000_000) });
    await expect(call()).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('more than a forwarded reply may carry') });
    answer = async () => {
      throw new ApiError('STALE_LEASE', { message: 'device web-1 is not held under epoch 3' });
    };
    await expect(call()).rejects.toMatchObject({ code: 'STALE_LEASE', message: 'device web-1 is not held under epoch 3' });
  });

  it('times out with COMMAND_TIMEOUT when the holder never answers, and HOST_UNREACHABLE for a host nobody holds', async () => {
    answer = () => new Promise(() => undefined);
    const started = performance.now();
    await expect(busB.call('host-1', { localId: 'web-1', epoch: 3, method: 'perception.mark', params: {} }, 300)).rejects.toMatchObject({
      code: 'COMMAND_TIMEOUT',
    });
    expect(performance.now() - started).toBeLessThan(4000);
    await expect(busB.call('host-9', { localId: 'x', epoch: 1, method: 'perception.mark', params: {} }, 300)).rejects.toMatchObject({
      code: 'HOST_UNREACHABLE',
    });
  });

  // CI once saw a gateway exit after Postgres restarted: a forward that could not be sent left its
  // timer behind, which later rejected a promise nobody held any more, and the process ended on it.
  it('sends a forward again through a database outage, and one that cannot be sent fails once, with nothing left to reject unheard', async () => {
    let failures = 0;
    const flaky = (db: Database): Database =>
      ({
        ...db,
        query: async (sql: string, params?: readonly unknown[]) => {
          if (sql.includes('pg_notify') && failures > 0) {
            failures--;
            throw new DatabaseUnavailableError('no database connection: connect ECONNREFUSED');
          }
          return db.query(sql, params);
        },
      }) as Database;
    const timers = new VirtualClock();
    const busC = new CommandBus(flaky(dbB), 'gw-c', logger, undefined, timers);
    await busC.attach({ linkFor: () => undefined } as unknown as WorkerHub);
    const unheard: unknown[] = [];
    const onUnhandled = (reason: unknown) => unheard.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      answer = async () => ({ ok: 1 });
      failures = 2; // down for two tries (100 + 200 ms of backoff), back within the call's time
      await expect(busC.call('host-1', { localId: 'web-1', epoch: 3, method: 'perception.mark', params: {} }, 3000)).resolves.toEqual({ ok: 1 });
      failures = 1_000; // down for longer than the call may wait
      await expect(busC.call('host-1', { localId: 'web-1', epoch: 3, method: 'perception.mark', params: {} }, 300)).rejects.toBeInstanceOf(
        DatabaseUnavailableError,
      );
      await timers.advance(300 + 2000 + 500); // past the abandoned call's own timer
      expect(timers.pending).toBe(1); // the bus's own re-ask, and no timer of the abandoned call left
      expect(unheard).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await busC.stop();
    }
  });
});
