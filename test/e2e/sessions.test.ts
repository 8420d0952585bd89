// Sessions through the REST API on an in-process farm (real Postgres, real HTTP, the worker
// protocol over memory): leasing, queueing, releasing, renewing, expiry, quarantine, bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFarm, type Farm } from '../helpers/farm.js';
import type { api } from '../helpers/api.js';
import { ageSession } from '../helpers/db-time.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { sleep, waitFor } from '../helpers/wait.js';

type Client = ReturnType<typeof api>;
let farm: Farm;
let alpha: Client;
let beta: Client;
let alphaViewer: Client;

beforeAll(async () => {
  farm = await startFarm({ SIMFLEET_SESSION_MAX_TTL_MS: '3600000', SIMFLEET_CREATE_WAIT_MS: '5000' });
  await farm.addWorker(2);
  alpha = await farm.token('agent', 'alpha');
  beta = await farm.token('agent', 'beta');
  alphaViewer = await farm.token('viewer', 'alpha');
});
afterAll(() => farm?.stop());

const device = async (id: string) => (await farm.admin.call('getDevice', { params: { deviceId: id } })).body;
const create = (client: Client, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  client.call('createSession', { body: { platform: 'web', ...body }, headers });
const release = (client: Client, id: string) => client.call('releaseSession', { params: { sessionId: id } });
/** A session that is ready: a just-released device may still be resetting, so wait for it. */
async function createReady(client: Client, body: Record<string, unknown> = {}) {
  let s = (await create(client, body)).body;
  for (let i = 0; i < 5 && (s.state === 'queued' || s.state === 'preparing'); i++) {
    s = (await client.call('getSession', { params: { sessionId: s.id }, query: { wait: '5', ifState: s.state } })).body;
  }
  if (s.state !== 'ready') throw new Error(`session ${s.id} is ${s.state}, not ready`);
  return s;
}
/** Waits until no device is mid-reset, so a test starts from a settled farm. */
async function settled() {
  await waitFor('devices settled', async () => {
    const list = (await farm.admin.call('listDevices')).body.devices as { state: string }[];
    return list.every((d) => d.state !== 'reclaiming' && d.state !== 'preparing') || undefined;
  });
}
async function waitForDevice(id: string, state: string, timeoutMs = 5000) {
  return waitFor(`device ${id} ${state}`, async () => ((await device(id)).state === state ? true : undefined), timeoutMs);
}

describe('leasing a device', () => {
  it('answers 201 with a ready session holding a prepared device, and releases it back to the pool', async () => {
    await settled();
    const res = await create(alpha, { app: { url: 'https://app.example.test/start' }, ttlSeconds: 120 });
    expect(res.status).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({ state: 'ready', team: 'alpha', priority: 'ci', endReason: null, epoch: expect.any(Number), queue: null });
    expect(s.device).toMatchObject({ platform: 'web', backend: 'fake' });
    expect(Date.parse(s.expiresAt) - Date.parse(s.readyAt)).toBe(120_000);
    expect((await device(s.device.id)).state).toBe('leased');
    const fake = farm.workers[0]!.provider.device(s.device.id.split('.').pop()!)!;
    expect(fake.app).toEqual({ url: 'https://app.example.test/start' });

    const got = await alpha.call('getSession', { params: { sessionId: s.id } });
    expect(got.body.id).toBe(s.id);
    expect((await alpha.call('listSessions')).body.sessions.map((x: { id: string }) => x.id)).toContain(s.id);

    const released = await release(alpha, s.id);
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ state: 'ended', endReason: 'released' });
    await waitForDevice(s.device.id, 'available');
    expect(fake.app).toBeNull(); // reset between sessions
    const again = await release(alpha, s.id);
    expect(again.status).toBe(200);
    expect(again.body.endedAt).toBe(released.body.endedAt);
  });

  it('queues when every device is taken (202 with a position), and hands over the next freed device', async () => {
    await settled();
    const a = await createReady(alpha);
    const b = await createReady(alpha);
    const queued = await create(beta, { waitSeconds: 30 });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ state: 'queued', device: null, queue: { position: 1 } });
    expect(queued.body.queueDeadline).not.toBeNull();

    const polled = alpha.call('getSession', { params: { sessionId: queued.body.id }, query: { wait: '10' } });
    // beta's session is not alpha's: 404, not 403, so ids do not leak
    expect((await polled).status).toBe(404);
    const long = beta.call('getSession', { params: { sessionId: queued.body.id }, query: { wait: '10' } });
    await sleep(200); // real time: the long poll must be waiting on the gateway (a network round trip) before the release
    await release(alpha, a.id);
    const moved = await long;
    expect(['preparing', 'ready']).toContain(moved.body.state);
    const ready = (await beta.call('getSession', { params: { sessionId: queued.body.id }, query: { wait: '5', ifState: moved.body.state } })).body;
    expect(ready.state).toBe('ready');
    expect(ready.device.id).toBe(a.device.id);
    await release(alpha, b.id);
    await release(beta, ready.id);
  });

  it('ends a request that waited past waitSeconds with queue-timeout', async () => {
    await settled();
    const held = [await createReady(alpha), await createReady(alpha)];
    const res = await create(beta, { waitSeconds: 1 });
    expect(res.status).toBe(202);
    const ended = (await beta.call('getSession', { params: { sessionId: res.body.id }, query: { wait: '5', ifState: 'queued' } })).body;
    expect(ended).toMatchObject({ state: 'ended', endReason: 'queue-timeout' });
    const now = await create(beta, { waitSeconds: 0 });
    expect(now.body).toMatchObject({ state: 'ended', endReason: 'queue-timeout' });
    for (const h of held) await release(alpha, h.id);
  });
});

describe('bad input', () => {
  it('names the field of an unknown platform and of an app that does not fit the platform', async () => {
    const bad = await alpha.call('createSession', { body: { platform: 'symbian' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({ in: 'body', field: 'platform' });
    const mismatch = await create(alpha, { app: { bundleId: 'com.example.app' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.message).toBe('body.app a web session takes app.url');
    const twoApps = await create(alpha, { app: { url: 'http://x.test/', package: 'a.b' } });
    expect(twoApps.status).toBe(400);
  });

  it('refuses a TTL above the farm maximum, naming it', async () => {
    const res = await create(alpha, { ttlSeconds: 999_999 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('ttlSeconds');
    // The farm's configured maximum (1 h here), not the 4 h default: one second more is refused.
    expect((await create(alpha, { ttlSeconds: 3601 })).status).toBe(400);
  });

  it('fails at once with 422 NO_MATCHING_DEVICE when no device in the farm could ever match', async () => {
    const android = await alpha.call('createSession', { body: { platform: 'android' } });
    expect(android.status).toBe(422);
    expect(android.body.error).toMatchObject({ code: 'NO_MATCHING_DEVICE' });
    expect(android.body.error.hint).toContain('no host reports a device for platform android');
    const label = await create(alpha, { device: { labels: ['gpu'] } });
    expect(label.status).toBe(422);
    expect(label.body.error.hint).toContain('Fake Phone / fake 1.0 [fake]');
  });

  it('answers a retried create with the same Idempotency-Key once, and 409 for another body', async () => {
    const key = { 'idempotency-key': 'build-4711-device' };
    const first = await create(alpha, { ttlSeconds: 60 }, key);
    const retry = await create(alpha, { ttlSeconds: 60 }, key);
    expect(retry.body.id).toBe(first.body.id);
    const other = await create(alpha, { ttlSeconds: 61 }, key);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { sessionId: first.body.id } });
    await release(alpha, first.body.id);
  });

  it('answers 410 with the end reason for renewing an ended session, and lets viewers read but not act', async () => {
    const s = await createReady(alpha, { ttlSeconds: 60 });
    const renewed = await alpha.call('renewSession', { params: { sessionId: s.id }, body: { ttlSeconds: 600 } });
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.expiresAt)).toBeGreaterThan(Date.parse(s.expiresAt) + 500_000);
    expect((await alphaViewer.call('getSession', { params: { sessionId: s.id } })).status).toBe(200);
    expect((await alphaViewer.call('releaseSession', { params: { sessionId: s.id } })).status).toBe(403);
    expect((await beta.call('releaseSession', { params: { sessionId: s.id } })).status).toBe(404);
    await release(alpha, s.id);
    const gone = await alpha.call('renewSession', { params: { sessionId: s.id } });
    expect(gone.status).toBe(410);
    expect(gone.body.error).toMatchObject({ code: 'SESSION_ENDED', details: { endReason: 'released' } });
  });
});

describe('expiry', () => {
  // A farm whose reaper runs on virtual timers: a pass happens when the test advances the clock,
  // and a session's time moves on by moving its timestamps back (helpers/db-time.ts). So each
  // warning and each end comes at a known pass, with no waiting for the real deadline.
  let clock: VirtualClock;
  let timed: Farm;
  let agent: Client;
  let viewer: Client;
  const REAPER_MS = 100;
  beforeAll(async () => {
    clock = new VirtualClock();
    timed = await startFarm({ SIMFLEET_SESSION_MAX_TTL_MS: '3600000', SIMFLEET_REAPER_INTERVAL_MS: String(REAPER_MS) }, { timers: clock });
    clock.settleWith(() => timed.gateway.reaper.idle());
    await timed.addWorker(1);
    agent = await timed.token('agent', 'alpha');
    viewer = await timed.token('viewer', 'alpha');
  });
  afterAll(() => timed?.stop());

  const ready = async (body: Record<string, unknown>) => {
    let s = (await agent.call('createSession', { body: { platform: 'web', ...body } })).body;
    // The one device may still be resetting after the last test's session ended (slow on a loaded
    // machine): the request queues and is placed once the reset is done.
    if (s.state === 'queued') {
      const id = s.id;
      s = await waitFor(
        'the queued session placed',
        async () => {
          const got = (await agent.call('getSession', { params: { sessionId: id } })).body;
          return got.state === 'ready' ? got : undefined;
        },
        20_000,
      );
    }
    expect(s.state).toBe('ready');
    return s;
  };
  const stateOf = async (id: string) =>
    (
      await timed.db.query<{ state: string; end_reason: string | null; idle_for_ms: number }>(
        `SELECT state, end_reason, (extract(epoch FROM now() - last_activity_at) * 1000)::float8 AS idle_for_ms FROM sessions WHERE id = $1`,
        [id],
      )
    )[0]!;
  const eventsUntil = (events: any[], n: number) => waitFor(`${n} events`, () => events.length >= n || undefined, 5000);
  /** One reaper pass, and its events delivered. */
  const pass = () => clock.advance(REAPER_MS);

  it('ends a session at its TTL with reason expired, after a ttl expiring event, and resets its device', async () => {
    const s = await ready({ ttlSeconds: 40 });
    const events = await stream(viewer, s.id, timed);
    await ageSession(timed.db, s.id, 31_000); // 9 s left: inside the warning lead (a quarter of the TTL)
    await pass();
    await eventsUntil(events, 2);
    expect(events.map(kind)).toEqual(['session:ready', 'expiring:ttl']);
    expect(Date.parse(events[1].deadline) - Date.parse(events[1].at)).toBeLessThanOrEqual(9_000);
    await ageSession(timed.db, s.id, 9_000);
    await pass();
    await eventsUntil(events, 3);
    expect(events.map(kind)).toEqual(['session:ready', 'expiring:ttl', 'session:ended']);
    expect(events.at(-1).session.endReason).toBe('expired');
    await waitFor('device available', async () =>
      (await timed.admin.call('getDevice', { params: { deviceId: s.device.id } })).body.state === 'available' ? true : undefined,
    );
  });

  it('idles out a session nobody acts on; a viewer watching sees the warning and does not keep it alive', async () => {
    const s = await ready({ idleTimeoutSeconds: 5 });
    const events = await stream(viewer, s.id, timed);
    // Idle time is the database's real clock: 2.5 s left leaves 1.25 s of real time before the
    // warning lead (a quarter of 5 s) for these passes on a loaded machine.
    await ageSession(timed.db, s.id, 2_500);
    await clock.advance(2_000); // the viewer's pings (every 1.7 s) and twenty passes: nothing, 2.5 s before the idle end
    expect(events.map(kind)).toEqual(['session:ready']);
    await ageSession(timed.db, s.id, 1_500); // 1 s left: inside the warning lead
    await pass();
    await eventsUntil(events, 2);
    const warning = events[1];
    expect(kind(warning)).toBe('expiring:idle');
    expect(Date.parse(warning.deadline) - Date.parse(warning.at)).toBeLessThanOrEqual(1_000);
    await ageSession(timed.db, s.id, 1_000);
    await pass();
    await eventsUntil(events, 3);
    expect(events.map(kind)).toEqual(['session:ready', 'expiring:idle', 'session:ended']);
    expect(events.at(-1).session.endReason).toBe('idle');
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('keeps a session its agent is watching, and idles it out once the agent stops', async () => {
    const s = await ready({ idleTimeoutSeconds: 5 });
    const events = await stream(agent, s.id, timed);
    for (let i = 0; i < 3; i++) {
      // 2.5 s of quiet, then the watch's next ping (every 5 s / 3): it counts as the agent's activity.
      // Idle time is the database's (real) clock: the 1.25 s left before the warning lead (a quarter
      // of 5 s) is the real time the ping may take to be recorded on a loaded machine.
      await ageSession(timed.db, s.id, 2_500);
      expect((await stateOf(s.id)).idle_for_ms).toBeGreaterThanOrEqual(2_500);
      await clock.advance(1_667);
      await waitFor('the ping recorded as activity', async () => ((await stateOf(s.id)).idle_for_ms < 1_000 ? true : undefined));
    }
    expect(await stateOf(s.id)).toMatchObject({ state: 'ready', end_reason: null }); // 9 s past its start, 5 s idle timeout
    expect(events.map(kind)).toEqual(['session:ready']);
    events.close();
    await ageSession(timed.db, s.id, 5_000);
    await pass();
    expect(await stateOf(s.id)).toMatchObject({ state: 'ended', end_reason: 'idle' });
  });

  it("audits expiries as the farm's own doing, naming nobody, and counts them in /metrics", async () => {
    const ends = await timed.db.query<{ r: string; actor: string | null }>(`SELECT detail->>'reason' AS r, actor FROM audit_log WHERE action = 'session.end'`);
    expect(new Set(ends.map((e) => e.r))).toEqual(new Set(['expired', 'idle']));
    for (const row of ends) expect(row.actor).toBeNull();
    const text = (await timed.admin.call('getMetrics')).text;
    expect(text).toMatch(/^simfleet_sessions_ended_total\{reason="idle"\} 2$/m);
    expect(text).toMatch(/^simfleet_sessions_ended_total\{reason="expired"\} 1$/m);
  });
});

describe('tickets for browsers', () => {
  const open = (url: string, headers: Record<string, string> = {}) =>
    new Promise<{ opened: boolean; status?: number; first?: any; ws: WebSocket }>((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.once('message', (d) => resolve({ opened: true, first: JSON.parse(d.toString()), ws }));
      ws.once('unexpected-response', (_req, res) => {
        // A refused upgrade's response is the listener's to read to its end, or its socket stays open.
        res.resume();
        res.on('end', () => resolve({ opened: false, status: res.statusCode, ws }));
      });
      ws.once('error', () => undefined);
    });

  it('opens a session stream with a single-use ticket in place of the token, and never twice', async () => {
    const s = await createReady(alpha);
    const url = (t: string) => `${farm.gateway.url.replace('http', 'ws')}/v1/sessions/${s.id}/events?ticket=${t}`;
    // Refused upgrades (no token, a used ticket, another team's session) end their connection:
    // the gateway stops cleanly after them (it once waited for such a socket forever).
    expect((await open(url(''))).status).toBe(401);
    const noAuth = await open(`${farm.gateway.url.replace('http', 'ws')}/v1/sessions/${s.id}/events`);
    expect(noAuth.status).toBe(401);
    const issued = await alphaViewer.call('createTicket');
    expect(issued.status).toBe(201);
    expect(issued.body.ticket).toMatch(/^tk_/);
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeLessThanOrEqual(31_000);
    const first = await open(url(issued.body.ticket));
    expect(first.opened).toBe(true);
    expect(first.first).toMatchObject({ type: 'session', session: { id: s.id } });
    first.ws.terminate();
    const again = await open(url(issued.body.ticket));
    expect(again).toMatchObject({ opened: false, status: 401 });
    expect((await open(url(`tk_${'x'.repeat(32)}`))).status).toBe(401);
    // A ticket is as the token that asked: another team's session is not found with it.
    const stranger = (await beta.call('createTicket')).body.ticket;
    expect((await open(url(stranger))).status).toBe(404);
    // A ticket only stands in on WebSocket routes: a REST call with one is still unauthorised.
    const rest = await fetch(`${farm.gateway.url}/v1/sessions/${s.id}?ticket=${(await alpha.call('createTicket')).body.ticket}`);
    expect(rest.status).toBe(401);
    await alpha.call('releaseSession', { params: { sessionId: s.id } });
    await waitForDevice(s.device.id, 'available');
  });
});

describe('quarantine', () => {
  it('quarantines a device whose reset fails, never hands it out, and returns it after an admin reset', async () => {
    await settled();
    const s = await createReady(alpha);
    const localId = s.device.id.split('.').pop()!;
    const fake = farm.workers[0]!.provider.device(localId)!;
    fake.failReset = 'the browser profile is locked';
    await release(alpha, s.id);
    await waitForDevice(s.device.id, 'broken');
    expect((await device(s.device.id)).stateReason).toContain('the browser profile is locked');
    const audit = await farm.db.query(`SELECT 1 FROM audit_log WHERE action = 'device.quarantine' AND subject = $1`, [s.device.id]);
    expect(audit.length).toBe(1);

    const others = [await createReady(alpha)];
    expect(others[0].device.id).not.toBe(s.device.id);
    const waiting = await create(alpha, { waitSeconds: 2 });
    expect(waiting.body.state).toBe('queued'); // the quarantined device is not handed out
    fake.failReset = undefined;
    const reset = await farm.admin.call('resetDevice', { params: { deviceId: s.device.id } });
    expect(reset.status).toBe(202);
    let final = waiting.body;
    while (final.state === 'queued' || final.state === 'preparing')
      final = (await alpha.call('getSession', { params: { sessionId: waiting.body.id }, query: { wait: '5', ifState: final.state } })).body;
    expect(final).toMatchObject({ state: 'ready', device: { id: s.device.id } });
    await release(alpha, final.id);
    await release(alpha, others[0].id);
  });

  it('tries a failed reset once more before quarantining: a device whose reset fails once comes back available', async () => {
    await settled();
    const s = await createReady(alpha);
    const fake = farm.workers[0]!.provider.device(s.device.id.split('.').pop()!)!;
    const before = fake.resets;
    const quarantines = async () => (await farm.db.query(`SELECT 1 FROM audit_log WHERE action = 'device.quarantine' AND subject = $1`, [s.device.id])).length;
    const quarantinedBefore = await quarantines();
    fake.failResets = 1;
    await release(alpha, s.id);
    await waitForDevice(s.device.id, 'available');
    expect(fake.resets).toBe(before + 1);
    expect(fake.failResets).toBe(0);
    expect(await quarantines()).toBe(quarantinedBefore);
  });

  it('moves a session whose device fails to prepare onto another device, and quarantines the first', async () => {
    const host = farm.workers[0]!.worker.identity.id;
    await settled();
    await waitForDevice(`${host}.fake-1`, 'available');
    await waitForDevice(`${host}.fake-2`, 'available');
    const bad = farm.workers[0]!.provider.device('fake-1')!;
    bad.failPrepare = 'could not open the app';
    const ready = await createReady(alpha);
    expect(ready).toMatchObject({ state: 'ready', device: { id: `${host}.fake-2` } });
    const quarantined = await device(`${host}.fake-1`);
    expect(quarantined.state).toBe('broken');
    expect(quarantined.stateReason).toContain('could not open the app');
    bad.failPrepare = undefined;
    await release(alpha, ready.id);
    await farm.admin.call('resetDevice', { params: { deviceId: `${host}.fake-1` } });
    await waitForDevice(`${host}.fake-1`, 'available');
  });
});

describe('the queue and teams (admin)', () => {
  it('lists queued requests in placement order, cancels one, and enforces a team quota', async () => {
    await settled();
    await farm.admin.call('putTeam', { params: { team: 'alpha' }, body: { weight: 2, maxConcurrentSessions: 1 } });
    const first = await createReady(alpha);
    const second = await create(alpha, { waitSeconds: 30 });
    expect(second.body.state).toBe('queued'); // a device is free, but alpha is at its quota
    const queue = (await farm.admin.call('listQueue')).body.entries;
    expect(queue.map((e: { session: { id: string } }) => e.session.id)).toEqual([second.body.id]);
    expect(queue[0].effectivePriority).toBe('ci');
    const teams = (await farm.admin.call('listTeams')).body.teams;
    expect(teams.find((t: { name: string }) => t.name === 'alpha')).toMatchObject({
      weight: 2,
      maxConcurrentSessions: 1,
      activeSessions: 1,
      queuedSessions: 1,
    });
    const cancelled = await farm.admin.call('cancelQueued', { params: { sessionId: second.body.id } });
    expect(cancelled.body).toMatchObject({ state: 'ended', endReason: 'cancelled' });
    expect((await farm.admin.call('cancelQueued', { params: { sessionId: second.body.id } })).status).toBe(410);
    expect((await alpha.call('listQueue')).status).toBe(403);
    await release(alpha, first.id);
    await farm.admin.call('putTeam', { params: { team: 'alpha' }, body: { weight: 1, maxConcurrentSessions: null } });
  });

  it('audits creates, releases, renewals, expiries and admin actions, and exposes queue metrics', async () => {
    const actions = new Set((await farm.db.query<{ action: string }>(`SELECT DISTINCT action FROM audit_log`)).map((r) => r.action));
    for (const a of ['session.create', 'session.end', 'session.renew', 'team.update', 'device.reset', 'device.quarantine']) expect(actions).toContain(a);
    const reasons = new Set((await farm.db.query<{ r: string }>(`SELECT detail->>'reason' AS r FROM audit_log WHERE action = 'session.end'`)).map((x) => x.r));
    for (const r of ['released', 'queue-timeout', 'cancelled']) expect(reasons).toContain(r);
    const text = (await farm.admin.call('getMetrics')).text;
    expect(text).toMatch(/^simfleet_queue_depth\{priority="ci"\} \d+$/m);
    expect(text).toMatch(/^simfleet_sessions\{state="ended"\} [1-9]/m);
    expect(text).toMatch(/^simfleet_placements_total [1-9]/m);
    expect(text).toMatch(/^simfleet_queue_wait_seconds_count [1-9]/m);
    expect(text).toMatch(/^simfleet_quarantines_total [1-9]/m);

    // Admin actions name the admin who took them (the cancel and the team updates of the test above).
    const adminId = (await farm.admin.call('getWhoami')).body.id;
    const byAdmin = await farm.db.query<{ action: string; actor: string | null; actor_role: string | null }>(
      `SELECT action, actor, actor_role FROM audit_log WHERE action = 'team.update' OR (action = 'session.end' AND detail->>'reason' = 'cancelled')`,
    );
    expect(new Set(byAdmin.map((r) => r.action))).toEqual(new Set(['team.update', 'session.end']));
    for (const row of byAdmin) expect(row).toMatchObject({ actor: adminId, actor_role: 'admin' });
  });
});

describe('reclaiming', () => {
  it('keeps a released device reclaiming through a slow reset, and places a waiting request on it only once the reset succeeded', async () => {
    // A host of its own with one slow device (prepare and reset take 1.5 s each), and a platform
    // nothing else in this file asks for, so no other request can take it.
    const { provider } = await farm.addWorker(1, { platform: 'ios', operationMs: 1500 });
    const slow = provider.device('fake-1')!;
    const first = await createReady(alpha, { platform: 'ios' });
    await release(alpha, first.id);
    const waiting = await create(beta, { platform: 'ios', waitSeconds: 30 });
    expect(waiting.status).toBe(202);
    expect((await device(first.device.id)).state).toBe('reclaiming');
    // Placement runs on every create and every 200 ms: several chances to take the device while it resets.
    await sleep(600); // real time: the fake device's reset is 1.5 s of the worker's real time
    expect((await device(first.device.id)).state).toBe('reclaiming');
    expect((await beta.call('getSession', { params: { sessionId: waiting.body.id } })).body.state).toBe('queued');
    expect(slow.resets).toBe(0);

    const moved = (await beta.call('getSession', { params: { sessionId: waiting.body.id }, query: { wait: '10', ifState: 'queued' } })).body;
    expect(slow.resets).toBe(1); // it left the queue only after the reset had succeeded
    const ready =
      moved.state === 'preparing'
        ? (await beta.call('getSession', { params: { sessionId: waiting.body.id }, query: { wait: '5', ifState: 'preparing' } })).body
        : moved;
    expect(ready).toMatchObject({ state: 'ready', device: { id: first.device.id } });
    await release(beta, ready.id);
  });
});

const kind = (e: any) => (e.type === 'session' ? `session:${e.session.state}` : `expiring:${e.reason}`);

/** Subscribes to a session's event stream; the array fills as session and expiring events arrive. */
async function stream(client: Client, sessionId: string, on: Farm = farm): Promise<any[] & { close(): void }> {
  const ws = new WebSocket(`${on.gateway.url.replace('http', 'ws')}/v1/sessions/${sessionId}/events`, {
    headers: { authorization: `Bearer ${client.token}` },
  });
  const messages: any[] = [];
  // These tests are about the session's life: the device's own events (settles, frame-changes) are
  // left to session-events.test.ts.
  ws.on('message', (d) => {
    const e = JSON.parse(d.toString());
    if (e.type === 'session' || e.type === 'expiring') messages.push(e);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  await waitFor('first event', () => messages.length > 0 || undefined, 3000);
  return Object.assign(messages, { close: () => ws.close() });
}
