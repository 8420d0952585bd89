// Bad input on the worker protocol: every case is answered with a coded close, and the gateway
// and its other workers carry on. Raw `ws` clients play the misbehaving worker.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PROTOCOL_VERSION } from '../../openapi/contract.js';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import {
  killAll,
  spawnSimfleet,
  startGatewayProcess,
  startWorkerProcess,
  TEST_ADMIN_TOKEN,
  type GatewayProcess,
  type SimfleetProcess,
} from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

let db: TestDatabase;
let gateway: GatewayProcess;
let client: ReturnType<typeof api>;
let workerToken: string;
let agentToken: string;
let goodWorker: SimfleetProcess;
let goodHostId: string;

const MAX_PAYLOAD = 64 * 1024;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startGatewayProcess({
    DATABASE_URL: db.url,
    SIMFLEET_HEARTBEAT_INTERVAL_MS: '200',
    SIMFLEET_HOST_TIMEOUT_MS: '2000',
    SIMFLEET_HELLO_TIMEOUT_MS: '500',
    SIMFLEET_WS_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD),
  });
  client = api(gateway.url, TEST_ADMIN_TOKEN);
  workerToken = (await client.call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
  agentToken = (await client.call('createToken', { body: { name: 'a', role: 'agent', team: 'default' } })).body.secret;
  goodWorker = await startWorkerProcess({
    SIMFLEET_GATEWAY_URL: gateway.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-good-')),
    SIMFLEET_FAKE_DEVICES: '1',
  });
  goodHostId = goodWorker.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
});

afterAll(async () => {
  await killAll();
  await db?.drop();
});

interface Outcome {
  messages: any[];
  code: number;
  reason: string;
}

/** Opens a raw connection, sends the frames, and reports what came back until the close. */
function rawSession(frames: (string | Buffer)[], token = workerToken, waitMs = 3000): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const url = `${gateway.url.replace('http', 'ws')}/v1/workers/connect`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    const messages: any[] = [];
    const timer = setTimeout(() => reject(new Error(`no close within ${waitMs} ms; got ${JSON.stringify(messages)}`)), waitMs);
    ws.on('open', () => {
      for (const f of frames) ws.send(f);
    });
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ messages, code, reason: reason.toString() });
    });
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ messages: [JSON.parse(body)], code: res.statusCode ?? 0, reason: 'http' }));
    });
    ws.on('error', () => undefined);
  });
}

const hello = (id: string, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'hello',
    protocolVersion: PROTOCOL_VERSION,
    host: { id, name: id, os: 'test', arch: 'x64', version: '0.0.0' },
    backends: [],
    devices: [],
    ...overrides,
  });

async function goodWorkerStillFine(): Promise<void> {
  const host = (await client.call('getHost', { params: { hostId: goodHostId } })).body;
  expect(host.state).toBe('online');
  expect(Date.now() - Date.parse(host.lastSeenAt)).toBeLessThan(1500);
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
}

describe('the worker protocol refuses bad input with a code and keeps serving', () => {
  // whatever one connection sent, the well-behaved worker beside it stays online and the gateway serves
  afterEach(goodWorkerStillFine);

  it('refuses an unknown token at the upgrade with 401 INVALID_TOKEN', async () => {
    const out = await rawSession([], 'sf_not_a_real_token_at_all_000000');
    expect(out.code).toBe(401);
    expect(out.messages[0].error.code).toBe('INVALID_TOKEN');
  });

  it('refuses a token of another role at the upgrade with 403 FORBIDDEN', async () => {
    const out = await rawSession([], agentToken);
    expect(out.code).toBe(403);
    expect(out.messages[0].error.code).toBe('FORBIDDEN');
  });

  it('makes a worker process with a bad token exit 2 naming INVALID_TOKEN', async () => {
    const bad = spawnSimfleet(['worker'], {
      SIMFLEET_GATEWAY_URL: gateway.url,
      SIMFLEET_WORKER_TOKEN: 'sf_wrong_wrong_wrong_wrong_wrong_0',
      SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-bad-')),
    });
    expect((await bad.exited()).code).toBe(2);
    expect(bad.stderr()).toContain('INVALID_TOKEN');
  });

  it('closes a connection that sends something other than JSON with 4400 PROTOCOL_ERROR', async () => {
    const out = await rawSession(['{this is not json']);
    expect(out).toMatchObject({ code: 4400, reason: 'PROTOCOL_ERROR' });
    expect(out.messages).toEqual([expect.objectContaining({ type: 'error', code: 'PROTOCOL_ERROR', message: 'the message is not JSON' })]);
  });

  it('closes on an unknown message type, naming the field', async () => {
    const out = await rawSession([JSON.stringify({ type: 'launch-missiles' })]);
    expect(out).toMatchObject({ code: 4400, reason: 'PROTOCOL_ERROR' });
    expect(out.messages[0].message).toBe('type "launch-missiles" is not a known type');
  });

  it('closes on a hello with a missing field, naming it', async () => {
    const out = await rawSession([JSON.stringify({ type: 'hello', protocolVersion: PROTOCOL_VERSION, backends: [], devices: [] })]);
    expect(out.code).toBe(4400);
    expect(out.messages[0].message).toBe('host is required');
  });

  it('closes on a heartbeat before hello', async () => {
    const out = await rawSession([JSON.stringify({ type: 'heartbeat', seq: 0, sentAt: new Date().toISOString() })]);
    expect(out.code).toBe(4400);
    expect(out.messages[0].message).toBe('heartbeat before hello');
  });

  it('closes on binary frames', async () => {
    const out = await rawSession([Buffer.from([1, 2, 3])]);
    expect(out.code).toBe(4400);
  });

  it('closes on another protocol version with 4426 PROTOCOL_VERSION_MISMATCH', async () => {
    const out = await rawSession([hello('raw-version', { protocolVersion: 99 })]);
    expect(out).toMatchObject({ code: 4426, reason: 'PROTOCOL_VERSION_MISMATCH' });
  });

  it('closes on a message over the size limit with 1009 and counts it', async () => {
    const out = await rawSession([hello('raw-huge', { padding: 'x'.repeat(MAX_PAYLOAD + 1) })]);
    expect(out.code).toBe(1009);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/simfleet_worker_protocol_errors_total\{code="MESSAGE_TOO_LARGE"\} [1-9]/);
  });

  it('closes a connection that never says hello with 4408 HELLO_TIMEOUT', async () => {
    const out = await rawSession([]);
    expect(out).toMatchObject({ code: 4408, reason: 'HELLO_TIMEOUT' });
  });

  it('refuses a second live connection for the same host id with 4409 HOST_ID_IN_USE', async () => {
    const out = await rawSession([hello(goodHostId)]);
    expect(out).toMatchObject({ code: 4409, reason: 'HOST_ID_IN_USE' });
  });

  it('registers a well-behaved raw client and acknowledges its heartbeats', async () => {
    const url = `${gateway.url.replace('http', 'ws')}/v1/workers/connect`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${workerToken}` } });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.on('open', r));
    ws.send(hello('raw-good'));
    await waitFor('welcome', () => messages.length >= 1 || undefined);
    ws.send(JSON.stringify({ type: 'heartbeat', seq: 7, sentAt: new Date().toISOString() }));
    await waitFor('heartbeat-ack', () => messages.length >= 2 || undefined);
    expect(messages.map((m) => m.type)).toEqual(['welcome', 'heartbeat-ack']);
    expect(messages[0]).toMatchObject({ hostId: 'raw-good', heartbeatIntervalMs: 200, hostTimeoutMs: 2000 });
    expect(messages[1].seq).toBe(7);
    ws.close(1000);
  });
});
