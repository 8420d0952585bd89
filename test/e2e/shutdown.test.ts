// The written shutdown sequence, observed from outside: 503 while draining, worker sockets closed
// with a reason, a deadline that cuts stragglers, and a second signal that forces the exit.
import { mkdtemp, readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../server/config.js';
import { startGateway } from '../../server/gateway.js';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { stubbornWebSocket } from '../helpers/stubborn-socket.js';
import { sleep, waitFor } from '../helpers/wait.js';

let db: TestDatabase;
let workerToken: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const gw = await startGatewayProcess({ DATABASE_URL: db.url });
  workerToken = (await api(gw.url, TEST_ADMIN_TOKEN).call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
  gw.kill('SIGTERM');
  await gw.exited();
});
afterEach(() => killAll());
afterAll(async () => {
  await killAll();
  await db?.drop();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('gateway shutdown', () => {
  it('answers 503 SHUTTING_DOWN while draining, then finishes by its deadline; stop() is idempotent', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-shut-'));
    const gw = await startGateway(
      loadGatewayConfig({
        DATABASE_URL: db.url,
        SIMFLEET_PORT: '0',
        SIMFLEET_DATA_DIR: dataDir,
        SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SIMFLEET_SHUTDOWN_TIMEOUT_MS: '3000',
      }),
      { logger: pino({ level: 'silent' }) },
    );
    const stubborn = await stubbornWebSocket(gw.url, workerToken);
    const started = Date.now();
    const stopping = gw.stop();
    expect(gw.stop()).toBe(stopping);
    const during = await fetch(`${gw.url}/v1/hosts`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(during.status).toBe(503);
    expect(during.headers.get('connection')).toBe('close');
    expect(((await during.json()) as { error: { code: string } }).error.code).toBe('SHUTTING_DOWN');
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(503);
    await stopping;
    const tookMs = Date.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(1400); // it did wait for the stubborn socket …
    expect(tookMs).toBeLessThan(3000 + 1500); // … but not past the deadline
    stubborn.destroy();
    await gw.stop(); // a second stop after completion is a no-op
  });

  it('finishes a request that was already in flight when the shutdown began', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-shut-'));
    const gw = await startGateway(
      loadGatewayConfig({
        DATABASE_URL: db.url,
        SIMFLEET_PORT: '0',
        SIMFLEET_DATA_DIR: dataDir,
        SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SIMFLEET_SHUTDOWN_TIMEOUT_MS: '5000',
      }),
      { logger: pino({ level: 'silent' }) },
    );
    // Headers now, the body later: the request is in the gateway's hands before the shutdown starts
    // and its handler runs after.
    const body = JSON.stringify({ name: 'minted while draining', role: 'viewer', team: 'team-x' });
    const url = new URL('/v1/tokens', gw.url);
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 600);
    });
    await sleep(300);
    const stopping = gw.stop();
    const res = await answered;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).token).toMatchObject({ name: 'minted while draining', role: 'viewer', team: 'team-x' });
    // Its connection closes with the answer: the drain does not wait for it until the deadline.
    const answeredAt = Date.now();
    await stopping;
    expect(Date.now() - answeredAt).toBeLessThan(2500);
    expect(await db.query(`SELECT 1 FROM tokens WHERE name = 'minted while draining' AND revoked_at IS NULL`)).toHaveLength(1);
  });

  it('closes worker connections with 1001 SHUTTING_DOWN; the worker redials the restarted gateway and keeps its devices', async () => {
    const port = String(await freePort());
    const env = { DATABASE_URL: db.url, SIMFLEET_PORT: port, SIMFLEET_HEARTBEAT_INTERVAL_MS: '200', SIMFLEET_HOST_TIMEOUT_MS: '5000' };
    const gw = await startGatewayProcess(env);
    const worker = await startWorkerProcess({
      SIMFLEET_GATEWAY_URL: gw.url,
      SIMFLEET_WORKER_TOKEN: workerToken,
      SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-w-')),
      SIMFLEET_FAKE_DEVICES: '2',
      SIMFLEET_RECONNECT_MIN_MS: '100',
      SIMFLEET_RECONNECT_MAX_MS: '400',
    });
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;

    gw.kill('SIGTERM');
    expect((await gw.exited()).code).toBe(0);
    const closed = await worker.waitForLog('close', (l) => l.msg === 'gateway connection closed');
    expect(closed).toMatchObject({ code: 1001, reason: 'SHUTTING_DOWN' });
    await worker.waitForLog('redial', (l) => l.msg === 'redialling the gateway' && l.code === 'UNREACHABLE');

    const again = await startGatewayProcess(env);
    await waitFor('second registration', () => worker.logs.filter((l) => l.msg === 'registered with the gateway').length === 2 || undefined, 10_000);
    const client = api(again.url, TEST_ADMIN_TOKEN);
    const host = (await client.call('getHost', { params: { hostId } })).body;
    expect(host).toMatchObject({ state: 'online', connected: true, deviceCount: 2 });
    const devices = (await client.call('listDevices', { query: { hostId } })).body.devices;
    expect(devices.map((d: { state: string }) => d.state)).toEqual(['available', 'available']);
    // The host was never marked offline: the restart was shorter than the host timeout.
    const offline = await db.query(`SELECT 1 FROM audit_log WHERE action = 'host.offline' AND subject = $1`, [hostId]);
    expect(offline).toEqual([]);
  });

  it('cuts a connection that ignores the close handshake at the deadline and exits 0', async () => {
    const gw = await startGatewayProcess({ DATABASE_URL: db.url, SIMFLEET_SHUTDOWN_TIMEOUT_MS: '2000' });
    const stubborn = await stubbornWebSocket(gw.url, workerToken);
    const started = Date.now();
    gw.kill('SIGTERM');
    expect((await gw.exited(10_000)).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000 + 1500);
    expect(gw.logs.some((l) => l.msg === 'worker connections did not close in time; terminating')).toBe(true);
    stubborn.destroy();
  });

  it('exits at once, non-zero, on a second signal during a slow shutdown', async () => {
    const gw = await startGatewayProcess({ DATABASE_URL: db.url, SIMFLEET_SHUTDOWN_TIMEOUT_MS: '30000' });
    const stubborn = await stubbornWebSocket(gw.url, workerToken);
    gw.kill('SIGTERM');
    await sleep(300);
    const second = Date.now();
    gw.kill('SIGTERM');
    const { code } = await gw.exited(5000);
    expect(code).toBe(1);
    expect(Date.now() - second).toBeLessThan(1500);
    stubborn.destroy();
  });
});

describe('a diagnostic signal', () => {
  // SIGUSR2 is Node's heap snapshot and report signal. close-with-grace counts it as a stop signal,
  // so a snapshot taken in a soak to find a leak also shut the worker down with its devices. A
  // diagnostic report stands in for the snapshot here: the same signal, written in milliseconds
  // where a snapshot of even an idle worker takes 20-30 s on this machine.
  it('writes a diagnostic report of a worker that keeps serving, and leaves a gateway running', async () => {
    const gw = await startGatewayProcess({ DATABASE_URL: db.url, SIMFLEET_HEARTBEAT_INTERVAL_MS: '200' });
    const snaps = await mkdtemp(join(tmpdir(), 'sf-report-'));
    const worker = await startWorkerProcess({
      SIMFLEET_GATEWAY_URL: gw.url,
      SIMFLEET_WORKER_TOKEN: workerToken,
      SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-w-')),
      SIMFLEET_FAKE_DEVICES: '1',
      NODE_OPTIONS: `--report-on-signal --report-signal=SIGUSR2 --report-directory=${snaps}`,
    });
    const hostId = worker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
    worker.kill('SIGUSR2');
    await worker.waitForLog('the signal noted', (l) => l.msg === 'signal left to Node diagnostics (heap snapshot, report); not shutting down');
    await waitFor('a diagnostic report', async () => (await readdir(snaps)).find((f) => f.startsWith('report.') && f.endsWith('.json')), 10_000);
    gw.kill('SIGUSR2');
    await gw.waitForLog('the signal noted', (l) => l.msg === 'signal left to Node diagnostics (heap snapshot, report); not shutting down');
    await sleep(1000); // heartbeats go on after the snapshot
    expect(worker.proc.exitCode).toBeNull();
    expect(gw.proc.exitCode).toBeNull();
    expect(worker.logs.some((l) => l.msg === 'signal received; shutting down')).toBe(false);
    const host = (await api(gw.url, TEST_ADMIN_TOKEN).call('getHost', { params: { hostId } })).body;
    expect(host).toMatchObject({ state: 'online', connected: true, deviceCount: 1 });
    worker.kill('SIGTERM');
    expect((await worker.exited()).code).toBe(0);
  });
});
