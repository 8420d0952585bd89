// Real gateway and worker processes over real WebSockets, on a fresh Postgres database.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN, type GatewayProcess } from '../helpers/processes.js';
import { sleep, waitFor } from '../helpers/wait.js';

const HEARTBEAT_MS = 200;
const HOST_TIMEOUT_MS = 1500;

let db: TestDatabase;
let gateway: GatewayProcess;
let workerToken: string;
let client: ReturnType<typeof api>;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startGatewayProcess({
    DATABASE_URL: db.url,
    SIMFLEET_HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
    SIMFLEET_HOST_TIMEOUT_MS: String(HOST_TIMEOUT_MS),
  });
  client = api(gateway.url, TEST_ADMIN_TOKEN);
  const created = await client.call('createToken', { body: { name: 'host agent', role: 'worker', team: 'default' } });
  expect(created.status).toBe(201);
  workerToken = created.body.secret;
});

afterAll(async () => {
  await killAll();
  await db?.drop();
});

async function workerEnv(extra: Record<string, string | undefined> = {}) {
  return {
    SIMFLEET_GATEWAY_URL: gateway.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-worker-')),
    SIMFLEET_FAKE_DEVICES: '3',
    SIMFLEET_RECONNECT_MIN_MS: '50',
    SIMFLEET_RECONNECT_MAX_MS: '300',
    ...extra,
  };
}

const hostState = async (id: string) => (await client.call('getHost', { params: { hostId: id } })).body;
const devicesOf = async (id: string) =>
  (await client.call('listDevices', { query: { hostId: id } })).body.devices as { id: string; state: string; stateReason: string | null }[];

describe('a worker process registering with a gateway process', () => {
  it('appears in /v1/hosts, /v1/devices and /metrics with its devices available (started with --gateway and --token)', async () => {
    const env = await workerEnv({ SIMFLEET_HOST_NAME: 'mac-mini-7', SIMFLEET_GATEWAY_URL: undefined, SIMFLEET_WORKER_TOKEN: undefined });
    const worker = await startWorkerProcess(env, true, ['--gateway', gateway.url, '--token', workerToken]);
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;

    const hosts = (await client.call('listHosts')).body.hosts as {
      id: string;
      name: string;
      state: string;
      connected: boolean;
      deviceCount: number;
      backends: unknown[];
    }[];
    const host = hosts.find((h) => h.id === hostId)!;
    expect(host).toMatchObject({ name: 'mac-mini-7', state: 'online', connected: true, deviceCount: 3 });
    expect(host.backends).toEqual([expect.objectContaining({ backend: 'fake', available: true })]);

    const devices = await devicesOf(hostId);
    expect(devices.map((d) => d.id)).toEqual([`${hostId}.fake-1`, `${hostId}.fake-2`, `${hostId}.fake-3`]);
    expect(devices.every((d) => d.state === 'available')).toBe(true);
    const metrics = (await client.call('getMetrics')).text;
    expect(metrics).toMatch(/^simfleet_devices\{state="available",platform="web"\} 3$/m);
    expect(metrics).toMatch(/^simfleet_devices\{state="leased",platform="web"\} 0$/m);
    // The worker's own memory, from its heartbeats, while this gateway holds its connection.
    const memoryLine = (kind: string) => new RegExp(`^simfleet_worker_memory_bytes\\{host="${hostId}",kind="${kind}"\\} (\\d+)$`, 'm');
    const rss = await waitFor('worker memory in /metrics', async () => memoryLine('rss').exec((await client.call('getMetrics')).text)?.[1]);
    expect(Number(rss)).toBeGreaterThan(20 * 2 ** 20);
    const text = (await client.call('getMetrics')).text;
    for (const kind of ['heap_used', 'external', 'array_buffers']) expect(Number(memoryLine(kind).exec(text)?.[1])).toBeGreaterThan(0);
    // What its stores hold, kind by kind, so a growing worker shows which part grows: marks taken
    // through the API are counted on the next heartbeat.
    const heldLine = (kind: string) => new RegExp(`^simfleet_worker_held\\{host="${hostId}",kind="${kind}"\\} (\\d+)$`, 'm');
    const kinds = [
      'frames',
      'frame_bytes',
      'marks',
      'marked_frame_bytes',
      'fine_profiles_pending',
      'app_memories',
      'screens',
      'faces',
      'edges',
      'escalations',
      'memory_batches_pending',
      'ocr_cache_entries',
      'event_log_events',
    ];
    for (const kind of kinds) expect(heldLine(kind).test(text), kind).toBe(true);
    expect(Number(heldLine('marks').exec(text)![1])).toBe(0);
    // Fake devices have no pages to read: none is reported, rather than a zero that looks measured.
    expect(heldLine('page_js_heap_bytes').test(text)).toBe(false);
    // Its strain, counted since it started: an idle host of fake devices has none, and says so.
    const strainLine = (kind: string) => new RegExp(`^simfleet_worker_strain_total\\{host="${hostId}",kind="${kind}"\\} (\\d+)$`, 'm');
    for (const kind of ['slow_reads', 'reads_cut_short', 'reads_overdue', 'captures_given_up']) expect(strainLine(kind).exec(text)?.[1], kind).toBe('0');
    const session = await client.call('createSession', { body: { platform: 'web' } });
    expect(session.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await client.call('createMark', { params: { sessionId: session.body.id } })).status).toBe(201);
    await waitFor('three marks counted in /metrics', async () =>
      Number(heldLine('marks').exec((await client.call('getMetrics')).text)?.[1]) === 3 ? true : undefined,
    );
    worker.kill('SIGKILL');
    await waitFor('worker memory gone from /metrics', async () => (memoryLine('rss').test((await client.call('getMetrics')).text) ? undefined : true));
    const gone = (await client.call('getMetrics')).text;
    expect(heldLine('marks').test(gone)).toBe(false);
    expect(strainLine('slow_reads').test(gone)).toBe(false); // a lost host's counts are not kept as if current
  });

  it('stays online across several host timeouts while heartbeats arrive', async () => {
    const worker = await startWorkerProcess(await workerEnv());
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
    const first = (await hostState(hostId)).lastSeenAt;
    await sleep(HOST_TIMEOUT_MS * 2.5);
    const later = await hostState(hostId);
    expect(later.state).toBe('online');
    expect(Date.parse(later.lastSeenAt)).toBeGreaterThan(Date.parse(first));
    expect(Date.now() - Date.parse(later.lastSeenAt)).toBeLessThan(HOST_TIMEOUT_MS);
    worker.kill('SIGKILL');
  });

  it('goes offline with its devices within the host timeout after SIGKILL, and comes back as the same host', async () => {
    const env = await workerEnv();
    const worker = await startWorkerProcess(env);
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;

    const killedAt = Date.now();
    worker.kill('SIGKILL');
    await waitFor('host offline', async () => (await hostState(hostId)).state === 'offline', HOST_TIMEOUT_MS * 3);
    const detectedMs = Date.now() - killedAt;
    // The sweep runs every timeout/5, so detection lands between the timeout and 1.2× it (plus polling).
    expect(detectedMs).toBeLessThan(HOST_TIMEOUT_MS * 1.2 + 500);
    const offline = await devicesOf(hostId);
    expect(offline.every((d) => d.state === 'offline' && d.stateReason === 'host offline: no heartbeat')).toBe(true);

    const restarted = await startWorkerProcess(env); // same data dir ⇒ same host id
    expect(restarted.logs.find((l) => l.msg === 'registered with the gateway')!.hostId).toBe(hostId);
    const back = await hostState(hostId);
    expect(back).toMatchObject({ state: 'online', connected: true, offlineSince: null });
    expect((await devicesOf(hostId)).every((d) => d.state === 'available')).toBe(true);
    restarted.kill('SIGKILL');
  });

  it('goes offline at once when the worker shuts down cleanly (SIGTERM says goodbye)', async () => {
    const worker = await startWorkerProcess(await workerEnv());
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
    const stoppedAt = Date.now();
    worker.kill('SIGTERM');
    expect((await worker.exited()).code).toBe(0);
    await waitFor('host offline', async () => (await hostState(hostId)).state === 'offline', HOST_TIMEOUT_MS);
    expect(Date.now() - stoppedAt).toBeLessThan(HOST_TIMEOUT_MS);
    expect((await devicesOf(hostId)).every((d) => d.state === 'offline' && d.stateReason === 'host stopped')).toBe(true);
  });

  it('records registrations and offline transitions in the audit log', async () => {
    const rows = await db.query<{ action: string }>(`SELECT action FROM audit_log`);
    const actions = new Set(rows.map((r) => r.action));
    expect(actions).toContain('host.register');
    expect(actions).toContain('host.offline');
    expect(actions).toContain('token.create');
  });
});
