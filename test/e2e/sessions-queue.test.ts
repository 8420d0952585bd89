// The queue and the lease through the REST API, on an in-process farm with two kinds of device (real
// Postgres, real HTTP, the worker protocol over memory): one device type never blocks another, the
// lease's defaults, activity that keeps a lease, and what a team may list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFarm, type Farm } from '../helpers/farm.js';
import type { api } from '../helpers/api.js';
import { ageSession } from '../helpers/db-time.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

type Client = ReturnType<typeof api>;
let farm: Farm;
let alpha: Client;
let beta: Client;
// The gateway's own timers (the reaper's passes, the activity throttle) are virtual: a pass runs
// when a test advances the clock, and a session's time moves on by moving its timestamps back.
const clock = new VirtualClock();
const REAPER_MS = 100;

beforeAll(async () => {
  farm = await startFarm({ SIMFLEET_CREATE_WAIT_MS: '3000', SIMFLEET_REAPER_INTERVAL_MS: String(REAPER_MS) }, { timers: clock });
  clock.settleWith(() => farm.gateway.reaper.idle());
  await farm.addWorker(1, { labels: ['fake', 'gpu'] });
  await farm.addWorker(1);
  alpha = await farm.token('agent', 'alpha');
  beta = await farm.token('agent', 'beta');
});
afterAll(() => farm?.stop());

const create = (client: Client, body: Record<string, unknown> = {}) => client.call('createSession', { body: { platform: 'web', ...body } });
const release = (client: Client, id: string) => client.call('releaseSession', { params: { sessionId: id } });
/**
 * A session once it is ready. A create answers 202 when placing it takes longer than the farm's
 * 3 s create wait, as it did in a full run on 2 cores: the test goes on from the ready session
 * either way, since what it checks comes after.
 */
async function ready(client: Client, body: Record<string, unknown> = {}) {
  let s = (await create(client, { waitSeconds: 10, ...body })).body;
  for (let i = 0; i < 3 && (s.state === 'queued' || s.state === 'preparing'); i++) {
    s = (await client.call('getSession', { params: { sessionId: s.id }, query: { wait: '10', ifState: s.state } })).body;
  }
  return s;
}
const labelsOf = async (deviceId: string): Promise<string[]> => (await farm.admin.call('getDevice', { params: { deviceId } })).body.labels;
const stateOf = async (id: string) =>
  (await farm.db.query<{ state: string; end_reason: string | null }>(`SELECT state, end_reason FROM sessions WHERE id = $1`, [id]))[0]!;

describe('the queue', () => {
  // A placement run looks at each team's oldest requests only, as many as there are free devices.
  // It used to pick them before asking whether any free device fitted them, so a team's older
  // request for a busy kind of device hid its newer one that the free device fitted.
  it("never lets a team's request for a busy kind of device hold up its next request, which a free device fits", async () => {
    const gpu = await ready(alpha, { device: { labels: ['gpu'] } });
    expect(gpu.state).toBe('ready');
    expect(gpu.host).toBe(gpu.device.hostId);
    expect(await labelsOf(gpu.device.id)).toContain('gpu');
    const waiting = await create(alpha, { device: { labels: ['gpu'] }, waitSeconds: 60 });
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({ host: null, device: null, queue: { position: 1 } });
    // One placement in the last 10 minutes: no interval to estimate from, so no estimate.
    expect(waiting.body.queue.etaSeconds).toBeNull();
    const any = await ready(alpha);
    expect(any.state).toBe('ready');
    expect(await labelsOf(any.device.id)).not.toContain('gpu');
    expect((await stateOf(waiting.body.id)).state).toBe('queued');
    // Two placements now: the estimate is their interval times the position.
    const [span] = await farm.db.query<{ s: number }>(
      `SELECT extract(epoch FROM max(placed_at) - min(placed_at))::float8 AS s FROM sessions WHERE placed_at IS NOT NULL`,
    );
    const place = (await alpha.call('getSession', { params: { sessionId: waiting.body.id } })).body.queue;
    expect(place.position).toBe(1);
    expect(place.etaSeconds).toBeCloseTo(span!.s, 0); // rounded to 0.1 s
    // The queued one still gets the gpu device the moment it is free.
    await release(alpha, gpu.id);
    const moved = (await alpha.call('getSession', { params: { sessionId: waiting.body.id }, query: { wait: '10', ifState: 'queued' } })).body;
    expect(['preparing', 'ready']).toContain(moved.state);
    expect(moved.device.id).toBe(gpu.device.id);
    await release(alpha, waiting.body.id);
    await release(alpha, any.id);
  });
});

describe('a placement run that considers fewer free devices than the farm has', () => {
  // Placement locks a batch of free devices per run (200 by default). It used to take the first
  // free devices by id whatever the queue wanted, so past a batch of free devices a request for the
  // one beyond them waited forever. Here the batch is 1 and the gpu device sorts last.
  it('offers a queued request the free device it fits, wherever that device sorts', async () => {
    const small = await startFarm({ SIMFLEET_CREATE_WAIT_MS: '3000', SIMFLEET_PLACEMENT_BATCH: '1' });
    try {
      await small.addWorker(2, { env: { SIMFLEET_HOST_ID: 'aaa-plain' } });
      await small.addWorker(1, { labels: ['fake', 'gpu'], env: { SIMFLEET_HOST_ID: 'zzz-gpu' } });
      const client = await small.token('agent', 'gamma');
      const s = await client.call('createSession', { body: { platform: 'web', device: { labels: ['gpu'] }, waitSeconds: 5 } });
      expect(s.status).toBe(201);
      expect(s.body.device.id).toBe('zzz-gpu.fake-1');
    } finally {
      await small.stop();
    }
  });
});

describe('the lease', () => {
  it('defaults to a 15-minute TTL and a 300 s idle timeout; a long poll past 60 s is refused', async () => {
    const s = await create(beta);
    expect(s.status).toBe(201);
    expect(s.body).toMatchObject({ ttlSeconds: 900, idleTimeoutSeconds: 300 });
    expect(Date.parse(s.body.expiresAt) - Date.parse(s.body.readyAt)).toBeGreaterThanOrEqual(899_000);
    expect(Date.parse(s.body.expiresAt) - Date.parse(s.body.readyAt)).toBeLessThanOrEqual(901_000);
    const tooLong = await beta.call('getSession', { params: { sessionId: s.body.id }, query: { wait: '61' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('VALIDATION_FAILED');
    await release(beta, s.body.id);
  });

  it("idles out a session only a viewer keeps reading: a viewer's GETs are not the agent's activity", async () => {
    const s = (await create(beta, { idleTimeoutSeconds: 5 })).body;
    const viewer = await farm.token('viewer', 'beta');
    const states: string[] = [];
    for (let i = 0; i < 5; i++) {
      // 0.9 s of the session's life, a viewer's read of it, and a reaper pass. Idle time is the
      // database's real clock: the 0.5 s left after the fifth is the real time the loop may take.
      await ageSession(farm.db, s.id, 900);
      states.push((await viewer.call('getSession', { params: { sessionId: s.id } })).body.state);
      await clock.advance(REAPER_MS);
    }
    expect(states).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    // Past five seconds without the agent, whatever the viewer read: the next pass ends it.
    await ageSession(farm.db, s.id, 1000);
    await clock.advance(REAPER_MS);
    expect((await viewer.call('getSession', { params: { sessionId: s.id } })).body).toMatchObject({ state: 'ended', endReason: 'idle' });
    const [audit] = await farm.db.query<{ actor: string | null; actor_role: string | null; team: string }>(
      `SELECT actor, actor_role, team FROM audit_log WHERE action = 'session.end' AND subject = $1`,
      [s.id],
    );
    expect(audit).toMatchObject({ team: 'beta' });
  }, 30_000);

  it("counts an agent's REST calls on the session as activity, and lists only the caller's team's sessions", async () => {
    const s = (await create(beta, { idleTimeoutSeconds: 5 })).body;
    expect(s.state).toBe('ready');
    // 8 s of a GET every second: past the 5 s idle timeout, yet the lease holds.
    for (let i = 0; i < 8; i++) {
      expect((await beta.call('getSession', { params: { sessionId: s.id } })).status).toBe(200);
      await ageSession(farm.db, s.id, 1000);
      await clock.advance(1000); // ten reaper passes
    }
    expect(await stateOf(s.id)).toMatchObject({ state: 'ready', end_reason: null });
    const mine = (await beta.call('listSessions')).body.sessions.map((x: { id: string }) => x.id);
    expect(mine).toContain(s.id);
    const theirs = (await alpha.call('listSessions')).body.sessions.map((x: { id: string }) => x.id);
    expect(theirs).not.toContain(s.id);
    await release(beta, s.id);
    // Who did it is on record: the agent's own token, by id, with its role and team.
    const [audit] = await farm.db.query<{ actor: string | null; actor_role: string | null; team: string; detail: { reason?: string } }>(
      `SELECT actor, actor_role, team, detail FROM audit_log WHERE action = 'session.end' AND subject = $1`,
      [s.id],
    );
    expect(audit).toMatchObject({ actor_role: 'agent', team: 'beta', detail: { reason: 'released' } });
    expect(audit!.actor).toMatch(/^tok_/);
  }, 30_000);
});

describe('priority ageing', () => {
  // A request climbs one class per SIMFLEET_QUEUE_AGING_MS (120 s by default) of waiting; the wait is
  // simulated by moving created_at back. Last in the file: it leaves devices resetting behind it.
  it('places a background request that waited two ageing periods before a fresh interactive one, and one that waited one period after it', async () => {
    // Both devices taken (the one released by the test before may still be resetting: wait for it).
    const held = [await ready(alpha), await ready(alpha)];
    expect(held.map((s) => s.state)).toEqual(['ready', 'ready']);
    const fresh = (await create(beta, { priority: 'interactive', waitSeconds: 60 })).body;
    const once = (await create(beta, { priority: 'background', waitSeconds: 60 })).body;
    const twice = (await create(beta, { priority: 'background', waitSeconds: 60 })).body;
    const waited = (id: string, seconds: number) =>
      farm.db.query(`UPDATE sessions SET created_at = now() - ($2::int * interval '1 second') WHERE id = $1`, [id, seconds]);
    await waited(once.id, 180);
    await waited(twice.id, 300);

    const position = async (id: string) => (await beta.call('getSession', { params: { sessionId: id } })).body.queue.position;
    expect([await position(twice.id), await position(fresh.id), await position(once.id)]).toEqual([1, 2, 3]);
    const queue = (await farm.admin.call('listQueue')).body.entries.map((e: { session: { id: string }; effectivePriority: string }) => [
      e.session.id,
      e.effectivePriority,
    ]);
    expect(queue).toEqual([
      [twice.id, 'interactive'],
      [fresh.id, 'interactive'],
      [once.id, 'ci'],
    ]);

    // Each release frees one device, which goes to the head of the queue; the others keep waiting.
    const leaves = async (id: string) => (await beta.call('getSession', { params: { sessionId: id }, query: { wait: '10', ifState: 'queued' } })).body.state;
    await release(alpha, held[0].id);
    expect(await leaves(twice.id)).not.toBe('queued');
    expect([(await stateOf(fresh.id)).state, (await stateOf(once.id)).state]).toEqual(['queued', 'queued']);
    await release(alpha, held[1].id);
    expect(await leaves(fresh.id)).not.toBe('queued');
    expect((await stateOf(once.id)).state).toBe('queued');
    for (const s of [twice, fresh, once]) await release(beta, s.id);
  });
});
