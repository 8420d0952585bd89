// An iOS host end to end on the doubles (no simulator can run here: this is Linux): a real gateway
// and a worker whose iOS backend runs the fake xcrun and AXe (test/doubles/ios/), which replay real
// recorded outputs. A session is placed on the simulator with its app, its screen is read from a
// real recorded accessibility dump, a permission is set through the API, and a tap into a detached
// input service is judged "may not have been delivered", never ok.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IosProvider } from '../../workers/devices/ios/provider.js';
import { BROWSER_FARM_ENV, startFarm, type Farm } from '../helpers/farm.js';
import { waitFor } from '../helpers/wait.js';

const DOUBLES = fileURLToPath(new URL('../doubles/ios/', import.meta.url));
const APP = 'com.example.recorded';
let farm: Farm;
let provider: IosProvider;
let state: string;
let agent: Awaited<ReturnType<Farm['token']>>;

const world = () => JSON.parse(readFileSync(join(state, 'world.json'), 'utf8')) as { privacy?: Record<string, Record<string, string>>; running: string | null };
const touches = () =>
  existsSync(join(state, 'touches.jsonl')) ? readFileSync(join(state, 'touches.jsonl'), 'utf8').trim().split('\n').filter(Boolean).length : 0;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'sf-ios-host-'));
  // The doubles find the simulated simulator through this variable; the worker runs in this process.
  process.env.FAKE_XCRUN_STATE = state;
  provider = new IosProvider({
    xcrun: `${DOUBLES}xcrun.mjs`,
    uiTool: 'axe',
    uiToolPath: `${DOUBLES}axe.mjs`,
    reset: 'erase',
    pollMs: 100,
    platform: 'darwin',
    logger: pino({ level: 'silent' }),
  });
  // The doubles are Node processes started per call: a busy machine stalls the in-process link longer
  // than the default one-second host timeout allows.
  farm = await startFarm(BROWSER_FARM_ENV);
  await farm.addWorkerWith([provider]);
  agent = await farm.token('agent', 'ios');
}, 120_000); // setup beside other suites on 2 cores can take over a minute
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
  await rm(state, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe('an iOS host, on the doubles', () => {
  it('places a session with its app, reads the recorded screen, sets a permission, and calls a lost tap not delivered', async () => {
    const created = (await agent.call('createSession', { body: { platform: 'ios', app: { bundleId: APP }, waitSeconds: 60 } })).body;
    const session = await waitFor(
      'the ios session ready',
      async () => {
        const got = (await agent.call('getSession', { params: { sessionId: created.id } })).body;
        expect(got.state, JSON.stringify(got.endReason ?? null)).not.toBe('ended');
        return got.state === 'ready' ? got : undefined;
      },
      60_000,
    );
    expect(session.device).toMatchObject({ platform: 'ios' });
    expect(world().running).toBe(APP);

    const read = await agent.call('getScreen', { params: { sessionId: session.id }, headers: { accept: 'application/json' } });
    expect(read.status, read.text.slice(0, 300)).toBe(200);
    const screen = read.body;
    expect(screen.elements.length).toBeGreaterThan(5);
    expect(screen.elements.every((e: { source: string }) => e.source === 'axe' || e.source === 'ocr')).toBe(true);
    const label = screen.elements.find((e: { label: string; role: string }) => e.label && e.role !== 'text' && e.role !== 'heading')?.label as string;
    expect(label).toBeTruthy();

    // A permission through the API: simctl privacy for the session's bundle.
    const granted = await agent.call('setPermission', { params: { sessionId: session.id }, body: { action: 'grant', permission: 'photos' } });
    expect(granted.status, granted.text.slice(0, 300)).toBe(200);
    expect(granted.body).toMatchObject({ platform: 'ios', app: APP, applied: ['photos'], note: expect.stringMatching(/terminate/) });
    expect(world().privacy?.[APP]?.photos).toBe('granted');
    const camera = await agent.call('setPermission', { params: { sessionId: session.id }, body: { action: 'grant', permission: 'camera' } });
    expect(camera.status).toBe(422);
    expect(camera.body.error).toMatchObject({ code: 'PERMISSION_UNSUPPORTED', details: { supported: expect.arrayContaining(['photos', 'location']) } });

    // The input service detaches: AXe accepts the tap and nothing arrives. iOS cannot count the
    // inputs an app received, so a tap that changed nothing is "may not have been delivered".
    writeFileSync(join(state, 'input-detached'), '');
    const before = touches();
    const lost = await agent.call('runAction', { params: { sessionId: session.id }, body: { action: 'tap', target: label } });
    expect(lost.status, lost.text.slice(0, 300)).toBe(200);
    expect(touches()).toBe(before);
    expect(lost.body.verdict).toBe('not-delivered');
    expect(lost.body.reason).toMatch(/may not have been delivered/);
    expect(lost.body.verdict).not.toBe('ok');

    expect((await agent.call('releaseSession', { params: { sessionId: session.id } })).status).toBe(200);
  }, 120_000);
});
