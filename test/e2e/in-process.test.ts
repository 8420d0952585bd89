// The same protocol over the in-memory socket pair (how `simfleet start` runs its local worker),
// with a real Postgres behind the gateway.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../server/config.js';
import { startGateway, type Gateway } from '../../server/gateway.js';
import { FakeProvider } from '../../workers/devices/fake/provider.js';
import { loadWorkerConfig, startWorker } from '../../workers/index.js';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const silent = pino({ level: 'silent' });
let db: TestDatabase;
let gateway: Gateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startGateway(
    loadGatewayConfig({
      DATABASE_URL: db.url,
      SIMFLEET_PORT: '0',
      SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-ip-')),
      SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SIMFLEET_HEARTBEAT_INTERVAL_MS: '100',
      SIMFLEET_HOST_TIMEOUT_MS: '1000',
    }),
    { logger: silent },
  );
});
afterAll(async () => {
  await gateway?.stop();
  await db?.drop();
});

describe('a worker in the gateway process', () => {
  it('registers, reports a device breaking and recovering, and says goodbye', async () => {
    const provider = new FakeProvider(2);
    const worker = await startWorker(loadWorkerConfig({ SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-ipw-')) }), {
      version: 'test',
      dial: async () => gateway.connectLocalWorker(),
      logger: silent,
      providers: [provider],
    });
    await worker.registered();
    const client = api(gateway.url, TEST_ADMIN_TOKEN);
    const hostId = worker.identity.id;
    const device = () => client.call('getDevice', { params: { deviceId: `${hostId}.fake-2` } }).then((r) => r.body);
    expect((await device()).state).toBe('available');

    provider.setBroken('fake-2', 'renderer crashed');
    await waitFor('device broken', async () => (await device()).state === 'broken');
    expect((await device()).stateReason).toBe('renderer crashed');
    provider.setBroken('fake-2', undefined);
    await waitFor('device available again', async () => (await device()).state === 'available');

    expect(gateway.hub.connectedHosts()).toEqual([hostId]);
    await worker.stop();
    await waitFor('host offline', async () => (await client.call('getHost', { params: { hostId } })).body.state === 'offline', 2000);
    expect(gateway.hub.connectionCount).toBe(0);
  });
});
