// Memory shared through Postgres: what one worker learns is written behind through its gateway,
// survives Postgres going away mid-flow (nothing acknowledged is lost; unacknowledged writes are
// retried), and a second worker process on another device knows the screens and the graph.
// Postgres here is a server of the test's own, restarted for real mid-flow; the shared server on
// 5432 keeps serving the suites running beside this one.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { api } from '../helpers/api.js';
import { privatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { settledSession } from '../helpers/sessions.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN, type GatewayProcess, type SimfleetProcess } from '../helpers/processes.js';
import { sleep, waitFor } from '../helpers/wait.js';

const FLOW: [string, string?][] = [
  ['Settings', 'tab'],
  ['Notifications'],
  ['#switch-badges'],
  ['Back to Settings'],
  ['Privacy'],
  ['Back to Settings'],
  ['Search', 'tab'],
  ['Inbox', 'tab'],
  ['#message-2'],
  ['Back to Inbox'],
];

let postgres: PrivatePostgres;
let db: pg.Pool;
let gateway: GatewayProcess;
let admin: ReturnType<typeof api>;
let agent: ReturnType<typeof api>;
let workerToken: string;
const workers: SimfleetProcess[] = [];

beforeAll(async () => {
  postgres = await privatePostgres();
  db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  db.on('error', () => undefined); // the restart drops idle connections
  // A generous host timeout: while Postgres restarts nobody can record a heartbeat.
  gateway = await startGatewayProcess({ DATABASE_URL: postgres.url, SIMFLEET_HOST_TIMEOUT_MS: '20000', SIMFLEET_HEARTBEAT_INTERVAL_MS: '500' });
  admin = api(gateway.url, TEST_ADMIN_TOKEN);
  workerToken = (await admin.call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
  agent = api(gateway.url, (await admin.call('createToken', { body: { name: 'agent', role: 'agent', team: 'qa' } })).body.secret);
}, 90_000);
afterAll(async () => {
  await killAll();
  await db?.end();
  await postgres?.stop();
});

/** A worker process with one web device; resolves when its device is available. */
async function worker(): Promise<SimfleetProcess> {
  const w = await startWorkerProcess({
    SIMFLEET_GATEWAY_URL: gateway.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-mem-')),
    SIMFLEET_WEB_DEVICES: 'iphone-15',
  });
  workers.push(w);
  await waitFor(
    'a web device available',
    async () => ((await admin.call('listDevices')).body.devices.some((d: { state: string }) => d.state === 'available') ? true : undefined),
    30_000,
  );
  return w;
}
const session = async () => ({ id: await settledSession(agent) });
const act = (id: string, [target, role]: [string, string?]) =>
  agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target, ...(role ? { role } : {}) } });
const q = async <T extends object>(sql: string): Promise<T[]> => (await db.query<T>(sql)).rows;

describe('memory shared through Postgres', () => {
  it('keeps every write made around a Postgres restart mid-flow', async () => {
    await worker();
    const s = await session();
    for (const step of FLOW.slice(0, 5)) expect((await act(s.id, step)).status).toBe(200);
    await postgres.restart(); // the last steps' writes are queued or in flight
    for (const step of FLOW.slice(5)) {
      const res = await waitFor(
        'the gateway back on its database',
        async () => {
          const r = await act(s.id, step);
          return r.status === 200 ? r : r.status >= 500 ? undefined : r;
        },
        20_000,
      );
      expect(res.status, res.text.slice(0, 200)).toBe(200);
    }
    await agent.call('releaseSession', { params: { sessionId: s.id } });
    // Every traversal, written behind and retried, is there once: ten edges' worth of counts.
    const edges = await waitFor(
      'all ten traversals written',
      async () => {
        const [row] = await q<{ n: number }>(`SELECT COALESCE(SUM(count), 0)::int AS n FROM memory_edges WHERE team = 'qa'`);
        return row!.n >= 10 ? row!.n : undefined;
      },
      20_000,
    );
    expect(edges).toBe(10);
    const [screens] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM memory_screens WHERE team = 'qa'`);
    expect(screens!.n).toBeGreaterThanOrEqual(6);
    const reasons = await q<{ reason: string; n: number }>(`SELECT reason, count(*)::int AS n FROM escalations WHERE team = 'qa' GROUP BY reason`);
    expect(reasons.find((r) => r.reason === 'unknown-screen')?.n).toBeGreaterThanOrEqual(5);
  });

  it('a second worker process on another device knows the screens and the graph', async () => {
    // The first worker process leaves (SIGTERM: it flushes what it knows on the way out); a second
    // one, with a device of its own, takes the next session.
    workers[0]!.kill('SIGTERM');
    expect((await workers[0]!.exited()).code).toBe(0);
    await worker();
    const s = await session();
    const verdicts: string[] = [];
    const known: boolean[] = [];
    const escalations: (string | null)[] = [];
    for (const step of FLOW) {
      const res = await act(s.id, step);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      verdicts.push(res.body.verdict);
      // Under load a verdict that is not ok is the thing to diagnose: its reason, settle and evidence.
      if (res.body.verdict !== 'ok')
        console.log(
          JSON.stringify({
            step,
            verdict: res.body.verdict,
            reason: res.body.reason,
            settle: res.body.settle,
            changed: res.body.evidence.changed,
            delivery: res.body.evidence.delivery,
            timings: res.body.timings,
          }),
        );
      known.push(res.body.evidence.before.known && res.body.evidence.after.known);
      escalations.push(res.body.escalation?.reason ?? null);
    }
    console.log(JSON.stringify({ verdicts, known, escalations }));
    expect(known.every(Boolean)).toBe(true);
    expect(verdicts).toEqual(new Array(10).fill('ok')); // the graph came with the memory
    expect(escalations.filter((e) => e === 'unknown-screen')).toEqual([]);
    await agent.call('releaseSession', { params: { sessionId: s.id } });
  });

  it('shows the memory through the API: apps, screens, graph, a route, escalations; and forgets an app', async () => {
    const apps = (await agent.call('listApps')).body.apps;
    expect(apps).toEqual([
      expect.objectContaining({
        team: 'qa',
        platform: 'web',
        app: 'simfleet-sample-app/sample/',
        versionBand: 'any',
        screens: expect.any(Number),
        edges: expect.any(Number),
      }),
    ]);
    const app = apps[0];
    expect(app.screens).toBeGreaterThanOrEqual(6);
    // Each screen keeps its vocabulary (what is on it and where to tap) and when it was last confirmed.
    const screens = (await agent.call('listAppScreens', { params: { appId: app.id } })).body.screens as {
      name: string | null;
      confirmedAt: string;
      vocabulary: { role: string; label: string; id?: string; tap: { x: number; y: number } }[];
    }[];
    const settings = screens.find((n) => n.name === 'Settings')!;
    expect(Date.parse(settings.confirmedAt)).toBeGreaterThan(Date.now() - 10 * 60_000);
    const notifications = settings.vocabulary.find((w) => w.id === 'link-notifications')!;
    expect(notifications).toMatchObject({ role: 'button', label: 'Notifications' });
    expect(notifications.tap.x).toBeGreaterThan(0);
    expect(notifications.tap.x).toBeLessThan(393);
    expect(notifications.tap.y).toBeGreaterThan(0);
    expect(notifications.tap.y).toBeLessThan(852);
    const graph = (await agent.call('getAppGraph', { params: { appId: app.id } })).body;
    const named = (name: string) => graph.nodes.find((n: { name: string | null }) => n.name === name)!.id as string;
    const route = await agent.call('getAppPath', { params: { appId: app.id }, query: { from: named('Inbox'), to: named('Privacy') } });
    expect(route.status).toBe(200);
    expect(route.body.steps.map((e: { action: string }) => e.action)).toEqual(['tap #tab-settings', 'tap #link-privacy']);
    const none = await agent.call('getAppPath', { params: { appId: app.id }, query: { from: named('Privacy'), to: 'nowhere0' } });
    expect(none.status).toBe(422);
    expect(none.body.error.code).toBe('NO_MATCH');
    // A goal the memory does not cover is escalated, with what the memory knows.
    expect(none.body.error.details).toMatchObject({
      escalation: { reason: 'uncovered-goal' },
      fromKnown: true,
      toKnown: false,
      verifiedEdges: expect.any(Number),
    });
    const uncovered = (await agent.call('listEscalations', { query: { reason: 'uncovered-goal', appId: app.id } })).body.escalations;
    expect(uncovered).toEqual([
      expect.objectContaining({
        id: none.body.error.details.escalation.id,
        hostId: null,
        screen: named('Privacy'),
        evidence: expect.objectContaining({ to: 'nowhere0' }),
      }),
    ]);
    const unknown = (await agent.call('listEscalations', { query: { reason: 'unknown-screen' } })).body.escalations;
    expect(unknown.length).toBeGreaterThanOrEqual(5);
    expect(unknown[0]).toMatchObject({
      team: 'qa',
      appId: app.id,
      reason: 'unknown-screen',
      evidence: expect.objectContaining({ verdict: expect.any(String) }),
    });
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^simfleet_escalations_total\{reason="unknown-screen"\} [1-9]/m);
    expect(metrics).toMatch(/^simfleet_escalations_total\{reason="uncovered-goal"\} 1$/m);
    expect(metrics).toMatch(/^simfleet_memory_writes_total\{outcome="applied"\} [1-9]/m);
    // Another team sees none of it; an agent may not forget; an admin may.
    const other = api(gateway.url, (await admin.call('createToken', { body: { name: 'other', role: 'agent', team: 'growth' } })).body.secret);
    expect((await other.call('listApps')).body.apps).toEqual([]);
    expect((await other.call('getAppGraph', { params: { appId: app.id } })).status).toBe(404);
    expect((await agent.call('forgetApp', { params: { appId: app.id } })).status).toBe(403);
    expect((await admin.call('forgetApp', { params: { appId: app.id } })).status).toBe(204);
    expect((await agent.call('listApps')).body.apps).toEqual([]);
    expect((await admin.call('forgetApp', { params: { appId: app.id } })).status).toBe(404);
    // The worker holding the app learns it was forgotten on its next write, and starts afresh.
    const s = await session();
    expect((await act(s.id, ['Settings', 'tab'])).status).toBe(200);
    await waitFor(
      'the forgotten write answered',
      async () => {
        const m = await (await fetch(`${gateway.url}/metrics`)).text();
        return /^simfleet_memory_writes_total\{outcome="forgotten"\} [1-9]/m.test(m) || undefined;
      },
      10_000,
    );
    // The gateway counts the write before its answer reaches the worker, which then starts afresh;
    // under a loaded CI (two browser suites on two cores) half a second was once not enough.
    await sleep(2000);
    // Privacy was not seen since the forget, and Settings → Privacy was remembered before it: the
    // fresh memory neither knows the screen nor predicts the edge, even though the screen the action
    // starts from was read (and could have been served again) with the forgotten memory. Inbox would
    // not do: whether the fresh memory saw it depends on when the worker heard of the forget.
    const after = await act(s.id, ['Privacy']);
    expect(after.status).toBe(200);
    expect(after.body.evidence.predicted).toBeNull(); // the graph went with the memory
    expect(after.body.evidence.after.known).toBe(false);
    expect(after.body.escalation?.reason).toBe('unknown-screen');
    await agent.call('releaseSession', { params: { sessionId: s.id } });
  });
});
