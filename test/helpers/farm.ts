// An in-process farm for session tests: a gateway on a fresh Postgres database and any number of
// workers with fake devices, connected over the in-memory protocol. Fast, and the fake devices can
// be told to fail.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { loadGatewayConfig } from '../../server/config.js';
import { startGateway, type Gateway } from '../../server/gateway.js';
import type { Timers } from '../../server/timers.js';
import type { BackendProvider } from '../../workers/devices/backend.js';
import { FakeProvider } from '../../workers/devices/fake/provider.js';
import { loadWorkerConfig, startWorker, type Worker } from '../../workers/index.js';
import { api } from './api.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { TEST_ADMIN_TOKEN } from './processes.js';

export interface Farm {
  db: TestDatabase;
  gateway: Gateway;
  admin: ReturnType<typeof api>;
  workers: { worker: Worker; provider: FakeProvider }[];
  addWorker(
    devices: number,
    opts?: { operationMs?: number; platform?: 'web' | 'android' | 'ios'; labels?: string[]; env?: Record<string, string> },
  ): Promise<{ worker: Worker; provider: FakeProvider }>;
  /** A worker with the given backends (a real WebProvider, say). */
  addWorkerWith(providers: BackendProvider[]): Promise<Worker>;
  token(role: 'agent' | 'viewer' | 'admin', team: string): Promise<ReturnType<typeof api>>;
  stop(): Promise<void>;
}

/**
 * For tests of acting on a real browser with the worker in the test's own process: the default
 * one-second host timeout is for liveness tests, and with two suites and their Chromiums on two
 * cores the shared event loop has missed it (a step answered HOST_UNREACHABLE while the link was
 * re-dialled). Liveness is not what these tests are about.
 */
export const BROWSER_FARM_ENV = { SIMFLEET_HEARTBEAT_INTERVAL_MS: '250', SIMFLEET_HOST_TIMEOUT_MS: '5000' };

/** `timers`: the gateway's own timers (the reaper's passes, stream pings), virtual in tests of expiry. */
/** `gatewayLogger`: the gateway's own log (tests of what it logs); the workers' stays silent. */
export async function startFarm(
  env: Record<string, string> = {},
  opts: { databaseUrl?: (url: string) => string; timers?: Timers; gatewayLogger?: Logger } = {},
): Promise<Farm> {
  const db = await createTestDatabase();
  const silent = pino({ level: process.env.SIMFLEET_TEST_LOG ?? 'silent' });
  const gateway = await startGateway(
    loadGatewayConfig({
      DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(db.url) : db.url,
      SIMFLEET_PORT: '0',
      SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-farm-')),
      SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SIMFLEET_HEARTBEAT_INTERVAL_MS: '100',
      SIMFLEET_HOST_TIMEOUT_MS: '1000',
      SIMFLEET_REAPER_INTERVAL_MS: '100',
      SIMFLEET_PLACEMENT_INTERVAL_MS: '200',
      ...env,
    }),
    { logger: opts.gatewayLogger ?? silent, ...(opts.timers ? { timers: opts.timers } : {}) },
  );
  const admin = api(gateway.url, TEST_ADMIN_TOKEN);
  const workers: Farm['workers'] = [];
  return {
    db,
    gateway,
    admin,
    workers,
    async addWorker(devices, opts = {}) {
      const provider = new FakeProvider(devices, {
        operationMs: opts.operationMs ?? 5,
        platform: opts.platform ?? 'web',
        ...(opts.labels ? { labels: opts.labels } : {}),
      });
      const worker = await startWorker(loadWorkerConfig({ SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-farmw-')), ...opts.env }), {
        version: 'test',
        dial: async () => gateway.connectLocalWorker(),
        logger: silent,
        providers: [provider],
      });
      await worker.registered();
      const entry = { worker, provider };
      workers.push(entry);
      return entry;
    },
    async addWorkerWith(providers) {
      const worker = await startWorker(loadWorkerConfig({ SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-farmw-')) }), {
        version: 'test',
        dial: async () => gateway.connectLocalWorker(),
        logger: silent,
        providers,
      });
      await worker.registered();
      workers.push({ worker, provider: new FakeProvider(0) });
      return worker;
    },
    async token(role, team) {
      const res = await admin.call('createToken', { body: { name: `${role} of ${team}`, role, team } });
      return api(gateway.url, res.body.secret);
    },
    async stop() {
      for (const w of workers) await w.worker.stop();
      await gateway.stop();
      await db.drop();
    },
  };
}
