// The farm stream (WS /v1/events) against a real gateway, Postgres and fake-device workers: a
// snapshot first, then host, device, session, queue and quarantine changes as the triggers log
// them; each team sees only its own sessions; a resumed stream gets each changed thing once; a
// cursor older than the log gets a gap and a fresh snapshot. And the live screen: JPEG frames on
// change, for viewers too, never for another team.
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaValidator, type Schemas } from '../../openapi/contract.js';
import type { FakeProvider } from '../../workers/devices/fake/provider.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { waitFor } from '../helpers/wait.js';

const isFarmEvent = schemaValidator<Schemas['FarmEvent']>('FarmEvent');
const isLiveFrame = schemaValidator<Schemas['LiveFrame']>('LiveFrame');
type FarmEvent = Schemas['FarmEvent'];

let farm: Farm;
let provider: FakeProvider;
let alpha: Awaited<ReturnType<Farm['token']>>;
let beta: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  farm = await startFarm();
  provider = (await farm.addWorker(1)).provider;
  alpha = await farm.token('agent', 'alpha');
  beta = await farm.token('agent', 'beta');
}, 30_000);
afterAll(async () => farm?.stop());

function farmStream(token: string, since?: number): Promise<{ events: FarmEvent[]; ws: WebSocket }> {
  const ws = new WebSocket(`${farm.gateway.url.replace('http', 'ws')}/v1/events${since !== undefined ? `?since=${since}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const events: FarmEvent[] = [];
  ws.on('message', (d) => {
    const e = JSON.parse(d.toString());
    if (!isFarmEvent(e)) throw new Error(`a farm event outside the contract: ${d.toString().slice(0, 300)}`);
    events.push(e);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ events, ws }));
    ws.once('error', reject);
  });
}

const find = <T extends FarmEvent['type']>(events: FarmEvent[], type: T, pred: (e: Extract<FarmEvent, { type: T }>) => boolean) =>
  events.find((e): e is Extract<FarmEvent, { type: T }> => e.type === type && pred(e as Extract<FarmEvent, { type: T }>));

async function ready(client: typeof alpha): Promise<string> {
  const created = (await client.call('createSession', { body: { platform: 'web', waitSeconds: 30 } })).body;
  if (created.state === 'ready') return created.id;
  return (
    await waitFor(
      'ready',
      async () => ((await client.call('getSession', { params: { sessionId: created.id } })).body.state === 'ready' ? created : undefined),
      20_000,
    )
  ).id;
}

describe('the farm stream', () => {
  it('starts with a snapshot, then tells sessions, devices and the queue as they change; each team sees its own sessions', async () => {
    const admin = await farmStream(farm.admin.token!);
    const a = await farmStream(alpha.token!);
    const b = await farmStream(beta.token!);
    const snap = await waitFor('snapshot', () => a.events[0], 3000);
    expect(snap.type).toBe('snapshot');
    if (snap.type !== 'snapshot') return;
    expect(snap.hosts.map((h) => h.id)).toContain(farm.workers[0]!.worker.identity.id);
    expect(snap.devices.some((d) => d.localId === 'fake-1')).toBe(true);

    const first = await ready(alpha);
    const second = (await alpha.call('createSession', { body: { platform: 'web', waitSeconds: 30 } })).body; // the one device is taken: queued
    expect(second.state).toBe('queued');
    await waitFor(
      'alpha sees its sessions and the queue',
      () =>
        (find(a.events, 'session', (e) => e.session.id === first && e.session.state === 'ready') && find(a.events, 'queue', (e) => e.queue.depth === 1)) ||
        undefined,
      5000,
    );
    expect(find(a.events, 'device', (e) => e.device.localId === 'fake-1' && e.device.state === 'leased')).toBeDefined();
    await alpha.call('releaseSession', { params: { sessionId: first } });
    await waitFor(
      'the queued one placed, the queue empty',
      () =>
        (find(admin.events, 'session', (e) => e.session.id === second.id && e.session.state === 'ready') &&
          find(admin.events, 'queue', (e) => e.queue.depth === 0)) ||
        undefined,
      10_000,
    );
    await alpha.call('releaseSession', { params: { sessionId: second.id } });
    await waitFor('the end reaches the admin', () => find(admin.events, 'session', (e) => e.session.id === second.id && e.session.state === 'ended'), 5000);

    // Beta saw the device and queue change but none of alpha's sessions.
    expect(b.events.some((e) => e.type === 'device')).toBe(true);
    expect(b.events.some((e) => e.type === 'session')).toBe(false);
    const seqs = admin.events.map((e) => e.seq);
    expect(seqs.every((x, i) => i === 0 || x > seqs[i - 1]!)).toBe(true);
    for (const s of [admin, a, b]) s.ws.close();
  });

  it('resumes with since: each thing changed meanwhile once, in its newest state; a cursor older than the log gets a gap and a snapshot', async () => {
    const first = await farmStream(alpha.token!);
    const snap = await waitFor('snapshot', () => first.events[0], 3000);
    first.ws.close();
    const id = await ready(alpha);
    await alpha.call('releaseSession', { params: { sessionId: id } });
    await waitFor(
      'device available again',
      async () => ((await farm.admin.call('listDevices')).body.devices.some((d: { state: string }) => d.state === 'available') ? true : undefined),
      10_000,
    );
    const resumed = await farmStream(alpha.token!, snap.seq);
    const sessionEvent = await waitFor('the session, ended', () => find(resumed.events, 'session', (e) => e.session.id === id), 5000);
    expect(sessionEvent.session.state).toBe('ended');
    expect(resumed.events.filter((e) => e.type === 'session' && e.session.id === id)).toHaveLength(1);
    expect(resumed.events.some((e) => e.type === 'snapshot')).toBe(false);
    resumed.ws.close();

    // The log pruned past the cursor (as the reaper does after an hour).
    await farm.db.query(`DELETE FROM farm_events WHERE seq <= $1`, [sessionEvent.seq]);
    const late = await farmStream(alpha.token!, snap.seq);
    await waitFor('gap and snapshot', () => (late.events.length >= 2 ? true : undefined), 5000);
    expect(late.events[0]).toMatchObject({ type: 'gap' });
    expect(late.events[1]).toMatchObject({ type: 'snapshot' });
    late.ws.close();
  });

  it('tells a quarantine when a device fails its reset', async () => {
    const s = await farmStream(farm.admin.token!);
    const id = await ready(alpha);
    provider.device('fake-1')!.failReset = 'the fake reset failed';
    await alpha.call('releaseSession', { params: { sessionId: id } });
    const q = await waitFor('quarantine', () => find(s.events, 'quarantine', (e) => e.quarantined), 10_000);
    expect(q.device).toMatchObject({ localId: 'fake-1', state: 'broken' });
    provider.device('fake-1')!.failReset = undefined;
    await farm.admin.call('resetDevice', { params: { deviceId: q.device.id } });
    await waitFor('back in the pool', () => find(s.events, 'quarantine', (e) => !e.quarantined), 10_000);
    s.ws.close();
  });
});

describe('the live screen', () => {
  it('sends a JPEG when the screen changes, to viewers too, and refuses another team', async () => {
    const id = await ready(alpha);
    const viewer = await farm.token('viewer', 'alpha');
    const ws = new WebSocket(`${farm.gateway.url.replace('http', 'ws')}/v1/sessions/${id}/screen/live?fps=10&scale=0.5`, {
      headers: { authorization: `Bearer ${viewer.token}` },
    });
    const frames: { header: Schemas['LiveFrame']; jpeg?: Buffer }[] = [];
    ws.on('message', (d, binary) => {
      if (!binary) {
        const h = JSON.parse(d.toString());
        if (!isLiveFrame(h)) throw new Error(`a frame header outside the contract: ${d.toString()}`);
        frames.push({ header: h });
      } else frames.at(-1)!.jpeg = d as Buffer;
    });
    await waitFor('a first frame', () => frames[0]?.jpeg, 5000);
    expect(frames[0]!.jpeg!.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(frames[0]!.jpeg!.length).toBe(frames[0]!.header.bytes);
    const before = frames.length;
    await new Promise((r) => setTimeout(r, 500)); // real time: a real worker process's frame stream
    expect(frames.length).toBe(before); // a still screen sends nothing
    provider.device('fake-1')!.showScreen('settings');
    await waitFor('a frame of the change', () => (frames.length > before && frames.at(-1)!.jpeg ? true : undefined), 5000);
    expect(frames.at(-1)!.header.seq).toBeGreaterThan(frames[0]!.header.seq);

    const refused = await new Promise<number>((resolve) => {
      const other = new WebSocket(`${farm.gateway.url.replace('http', 'ws')}/v1/sessions/${id}/screen/live`, {
        headers: { authorization: `Bearer ${beta.token}` },
      });
      other.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      other.on('open', () => resolve(101));
    });
    expect(refused).toBe(404);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await alpha.call('releaseSession', { params: { sessionId: id } });
    expect(await closed).toBe(1000);
  });
});
