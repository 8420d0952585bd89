// The event streams across a farm of two gateway processes and a worker process: a subscriber on
// the gateway that does not hold the worker's connection gets the device's events (read through
// the other gateway), resumes on the other gateway with the same cursor and misses nothing, and the
// farm stream's seq is the same on both.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN, type GatewayProcess } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

let db: TestDatabase;
let near: GatewayProcess; // holds the worker's connection
let far: GatewayProcess;
let agent: { near: ReturnType<typeof api>; far: ReturnType<typeof api>; secret: string };

beforeAll(async () => {
  db = await createTestDatabase();
  const env = {
    DATABASE_URL: db.url,
    SIMFLEET_HEARTBEAT_INTERVAL_MS: '500',
    SIMFLEET_HOST_TIMEOUT_MS: '5000',
    SIMFLEET_PLACEMENT_INTERVAL_MS: '200',
    SIMFLEET_REAPER_INTERVAL_MS: '250',
  };
  [near, far] = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  const admin = api(near.url, TEST_ADMIN_TOKEN);
  const workerToken = (await admin.call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
  await startWorkerProcess({
    SIMFLEET_GATEWAY_URL: near.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-2gw-')),
    SIMFLEET_FAKE_DEVICES: '1',
    SIMFLEET_WEB_DEVICES: 'none',
  });
  const secret = (await admin.call('createToken', { body: { name: 'a', role: 'agent', team: 'two' } })).body.secret;
  agent = { near: api(near.url, secret), far: api(far.url, secret), secret };
}, 90_000);
afterAll(async () => {
  await killAll();
  await db?.drop();
});

function subscribe(gateway: GatewayProcess, path: string): { events: any[]; ws: WebSocket; opened: Promise<void> } {
  const ws = new WebSocket(`${gateway.url.replace('http', 'ws')}${path}`, { headers: { authorization: `Bearer ${agent.secret}` } });
  const events: any[] = [];
  ws.on('message', (d) => events.push(JSON.parse(d.toString())));
  return { events, ws, opened: new Promise((r) => ws.once('open', () => r())) };
}

describe('streams across two gateways', () => {
  it('a subscriber on either gateway gets the device events, and resumes on the other without a miss or a repeat', async () => {
    const created = (await agent.far.call('createSession', { body: { platform: 'web', waitSeconds: 30 } })).body;
    // The worker's device may still be reporting in (a host that just registered): wait for ready.
    const id = created.id as string;
    if (created.state !== 'ready')
      await waitFor(
        'session ready',
        async () =>
          (await agent.far.call('getSession', { params: { sessionId: id }, query: { wait: '5', ifState: created.state } })).body.state === 'ready'
            ? true
            : undefined,
        30_000,
      );
    const onFar = subscribe(far, `/v1/sessions/${id}/events`);
    const steady = subscribe(near, `/v1/sessions/${id}/events`);
    await Promise.all([onFar.opened, steady.opened]);
    await waitFor('state on both', () => (onFar.events.length && steady.events.length ? true : undefined), 5000);
    const tap = (target: string) => agent.far.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target } });
    expect((await tap('Settings')).status).toBe(200);
    await waitFor('the action through the far gateway', () => onFar.events.find((e) => e.type === 'action'), 5000);
    onFar.ws.close();
    const lastSeen = onFar.events.at(-1).seq as number;
    expect((await tap('Back')).status).toBe(200);
    await waitFor('the second action on the steady subscriber', () => steady.events.filter((e) => e.type === 'action').length === 2 || undefined, 5000);
    const resumed = subscribe(near, `/v1/sessions/${id}/events?since=${lastSeen}`);
    await resumed.opened;
    const missed = steady.events.filter((e) => e.seq > lastSeen);
    await waitFor('what was missed', () => (resumed.events.length >= missed.length ? true : undefined), 5000);
    expect(resumed.events.slice(0, missed.length)).toEqual(missed);
    expect(missed.map((e) => e.type)).toContain('action');
    resumed.ws.close();
    steady.ws.close();

    // The farm stream: both gateways number the farm's changes alike.
    const farms = [subscribe(near, '/v1/events'), subscribe(far, '/v1/events')];
    await Promise.all(farms.map((f) => f.opened));
    await waitFor('snapshots', () => (farms.every((f) => f.events.length > 0) ? true : undefined), 5000);
    await agent.far.call('releaseSession', { params: { sessionId: id } });
    const ended = (f: (typeof farms)[number]) =>
      f.events.find((e: Schemas['FarmEvent']) => e.type === 'session' && e.session.id === id && e.session.state === 'ended');
    await waitFor('the end on both', () => (farms.every((f) => ended(f)) ? true : undefined), 5000);
    expect(ended(farms[0]!).seq).toBe(ended(farms[1]!).seq);
    for (const f of farms) f.ws.close();
  });
});
