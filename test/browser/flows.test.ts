// Acting beyond one tap, on real Chromium, the sample app, a real gateway and Postgres (worker in
// process): a 10-step task in one /do call against the same steps one by one; recording it,
// replaying it, an app update that renames the Settings tab (refused before any touch, with both
// identities), the repair and the resume; a retried action that runs once. Replays in a row are
// flows-replays.test.ts, in the acceptance tier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { webFarm } from '../helpers/web-device.js';

let farm: Farm;
let provider: WebProvider;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

type Agent = Awaited<ReturnType<Farm['token']>>;
const release = async (agent: Agent, id: string) => {
  await agent.call('releaseSession', { params: { sessionId: id } });
  await waitFor('device free', async () => ((await farm.admin.call('listDevices')).body.devices[0]?.state === 'available' ? true : undefined), 20_000);
};
const tap = (target: string, role?: string) => ({ action: 'tap', target, ...(role ? { role } : {}) });

// From the inbox through a message, Search and Settings (a page, a switch, another page) and home.
const TASK = [
  tap('#message-2'),
  tap('Back to Inbox'),
  tap('Search', 'tab'),
  tap('Settings', 'tab'),
  tap('Notifications'),
  tap('#switch-badges'),
  tap('Back to Settings'),
  tap('Privacy'),
  tap('Back to Settings'),
  tap('Inbox', 'tab'),
];
const RENAMED_STEP = 3;

describe('steps in one call', () => {
  it('runs the 10-step task one by one, then as one /do call: 10 verified steps, the same final screen', async () => {
    const agent = await farm.token('agent', 'task');
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const single: string[] = [];
      for (const step of TASK) {
        const res = await agent.call('runAction', { ...at, body: step });
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        single.push(res.body.screen.id);
      }
      const t0 = performance.now();
      const run = await agent.call('runSteps', { ...at, body: { steps: TASK } });
      const ms = performance.now() - t0;
      expect(run.status, run.text.slice(0, 300)).toBe(200);
      expect(run.body.divergence, JSON.stringify(run.body.divergence)?.slice(0, 400)).toBeNull();
      expect(run.body.completed).toBe(10);
      // Verified: each ended where the same step ended before (or flipped its switch in place).
      expect(run.body.steps.map((s: { verdict: string }) => s.verdict)).toEqual(new Array(10).fill('ok'));
      // The screen each step ended on (a step that came good late under load says so in `screen`).
      expect(run.body.steps.map((s: { screen: { id: string } }) => s.screen.id)).toEqual(single);
      expect(run.body.screen.id).toBe(single.at(-1));
      expect(run.body.planDigest).toMatch(/^[a-f0-9]{32}$/);
      console.log(`10 steps in one call: ${Math.round(ms)} ms (${Math.round(ms / 10)} ms a step)`);
    } finally {
      await release(agent, id);
    }
  }, 150_000); // twenty actions and a release: past 60 s in a full run on a slow host (2026-12-02)

  it('answers a retried action with the same Idempotency-Key from the first run: the switch flips once', async () => {
    const agent = await farm.token('agent', 'retry');
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      await agent.call('runSteps', { ...at, body: { steps: [tap('Settings', 'tab'), tap('Notifications')] } });
      const before = await provider
        .device('web-1')!
        .currentPageForTests.evaluate(() =>
          document.querySelector('.stack:not([hidden]) .screen:not([hidden]) [data-testid="switch-badges"]')!.getAttribute('aria-checked'),
        );
      const headers = { 'idempotency-key': 'flip-badges-0001' };
      const [a, b] = await Promise.all([
        agent.call('runAction', { ...at, headers, body: tap('#switch-badges') }),
        agent.call('runAction', { ...at, headers, body: tap('#switch-badges') }),
      ]);
      const c = await agent.call('runAction', { ...at, headers, body: tap('#switch-badges') });
      expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
      expect(b.body).toEqual(a.body);
      expect(c.body).toEqual(a.body);
      const after = await provider
        .device('web-1')!
        .currentPageForTests.evaluate(() =>
          document.querySelector('.stack:not([hidden]) .screen:not([hidden]) [data-testid="switch-badges"]')!.getAttribute('aria-checked'),
        );
      expect(after).toBe(before === 'true' ? 'false' : 'true'); // flipped once, not three times
      const reused = await agent.call('runAction', { ...at, headers, body: tap('Back to Settings') });
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    } finally {
      await release(agent, id);
    }
  });
});

describe('recorded flows', () => {
  let agent: Agent;
  let saved: { summary: { name: string; planDigest: string; steps: number; verifiedSteps: number }; steps: Record<string, any>[] };

  beforeAll(async () => {
    agent = await farm.token('agent', 'flows');
  });

  it('records the task on a memory that knows nothing yet and saves it unverified, with durable targets', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const started = await agent.call('startRecording', { ...at, body: { name: 'tour' } });
      expect(started.status).toBe(201);
      expect((await agent.call('startRecording', { ...at, body: { name: 'other' } })).body.error.code).toBe('RECORDING_ACTIVE');
      // @N refs are ephemeral: step 0 goes by ref, and the recording must keep the element's id.
      const outline = (await agent.call('getScreen', { ...at, headers: { accept: 'application/json' } })).body;
      const message2 = outline.elements.find((e: { id: string | null }) => e.id === 'message-2');
      const first = await agent.call('runAction', { ...at, body: tap(`@${message2.ref}`) });
      expect(first.status).toBe(200);
      const rest = await agent.call('runSteps', { ...at, body: { steps: TASK.slice(1) } });
      expect(rest.body.divergence).toBeNull();
      expect((await agent.call('getRecording', at)).body).toMatchObject({ name: 'tour', steps: 10 });
      const res = await agent.call('saveRecording', at);
      expect(res.status, res.text.slice(0, 300)).toBe(201);
      saved = res.body;
      expect(saved.summary).toMatchObject({ name: 'tour', version: 1, steps: 10, recordedOn: 'iPhone 15 (web)' });
      expect(saved.summary.verifiedSteps).toBeLessThan(10); // a first traversal has nothing to be verified against
      expect(saved.steps[0]).toMatchObject({ action: 'tap', target: '#message-2', expect: { binding: { id: 'message-2', role: 'button' } } });
      expect(saved.steps[RENAMED_STEP]).toMatchObject({ target: '#tab-settings', expect: { binding: { label: 'Settings', role: 'tab', region: 'bottom' } } });
      expect(saved.steps.every((s) => typeof s.expect?.to === 'string')).toBe(true);
      expect((await agent.call('getRecording', at)).status).toBe(404);
      const listed = (await agent.call('listFlows')).body.flows;
      expect(listed.map((f: { name: string }) => f.name)).toEqual(['tour']);
    } finally {
      await release(agent, id);
    }
  });

  it('stops a replay before the renamed tab with identity-mismatch, resumes once repaired, and refuses another plan', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const sample = provider.sampleUrl!;
      const open = (url: string) => agent.call('runAction', { ...at, body: { action: 'open', url } });
      expect((await open(`${sample}?rename-settings=Preferences#/inbox`)).status).toBe(200);
      const run = await agent.call('replayFlow', { ...at, body: { flow: 'tour' } });
      expect(run.status, run.text.slice(0, 300)).toBe(200);
      const d = run.body.divergence;
      expect(d, JSON.stringify(run.body.steps.map((s: { detail: string }) => s.detail))).not.toBeNull();
      expect(d).toMatchObject({
        index: RENAMED_STEP,
        code: 'identity-mismatch',
        resume: { allowed: true, from: RENAMED_STEP, planDigest: saved.summary.planDigest },
      });
      expect(d.binding.recorded).toMatchObject({ id: 'tab-settings', label: 'Settings' });
      expect(d.binding.observed).toMatchObject({ id: 'tab-settings', label: 'Preferences' });
      expect(d.message).toContain('Preferences');
      expect(run.body.completed).toBe(RENAMED_STEP);
      expect(run.body.flow).toMatchObject({ name: 'tour', version: 1 });
      // Nothing was touched: the device still shows Search, where step 2 left it.
      expect(d.screen.name).toBe('Search');
      expect(d.outline).toMatch(/tab [\d,]+ "Preferences" #tab-settings/);
      const search = await provider.device('web-1')!.currentPageForTests.evaluate(() => document.querySelector('#tab-search')!.getAttribute('aria-selected'));
      expect(search).toBe('true');

      // Another plan cannot ride on this digest.
      const other = await agent.call('runSteps', { ...at, body: { steps: TASK.slice(0, 5), from: RENAMED_STEP, planDigest: d.resume.planDigest } });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('PLAN_CHANGED');
      const wrong = await agent.call('replayFlow', { ...at, body: { flow: 'tour', from: RENAMED_STEP, planDigest: '0'.repeat(32) } });
      expect(wrong.status).toBe(409);
      expect(wrong.body.error.code).toBe('PLAN_CHANGED');

      // The repair: the app as recorded, on the screen the failed step expects; then the same plan resumes.
      expect((await open(`${sample}#/search`)).status).toBe(200);
      const resumed = await agent.call('replayFlow', { ...at, body: { flow: 'tour', from: d.resume.from, planDigest: d.resume.planDigest } });
      expect(resumed.status, resumed.text.slice(0, 300)).toBe(200);
      expect(resumed.body.divergence, JSON.stringify(resumed.body.divergence)?.slice(0, 400)).toBeNull();
      expect(resumed.body.steps.filter((s: { status: string }) => s.status === 'done')).toHaveLength(10 - RENAMED_STEP);
      expect(resumed.body.screen.name).toBe('Inbox');
    } finally {
      await release(agent, id);
    }
  });

  it('keeps versions, keeps flows to their team, and deletes every version', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      for (const steps of [TASK.slice(0, 2), TASK.slice(0, 1)]) {
        await agent.call('startRecording', { ...at, body: { name: 'short' } });
        expect((await agent.call('runSteps', { ...at, body: { steps } })).body.divergence).toBeNull();
        expect((await agent.call('saveRecording', at)).status).toBe(201);
      }
      expect((await agent.call('getFlow', { params: { flowName: 'short' } })).body.summary).toMatchObject({ version: 2, steps: 1 });
      expect((await agent.call('getFlow', { params: { flowName: 'short' }, query: { version: '1' } })).body.summary).toMatchObject({ version: 1, steps: 2 });
      // Nothing ran while this one recorded: there is nothing to save, and nothing is lost by saying so.
      await agent.call('startRecording', { ...at, body: { name: 'empty' } });
      const empty = await agent.call('saveRecording', at);
      expect(empty.status).toBe(422);
      expect(empty.body.error.code).toBe('EMPTY_RECORDING');
      expect((await agent.call('discardRecording', at)).status).toBe(204);
      const stranger = await farm.token('agent', 'elsewhere');
      expect((await stranger.call('getFlow', { params: { flowName: 'short' } })).status).toBe(404);
      expect((await stranger.call('listFlows')).body.flows).toEqual([]);
      expect((await stranger.call('replayFlow', { ...at, body: { flow: 'short' } })).status).toBe(404);
      expect((await agent.call('deleteFlow', { params: { flowName: 'short' } })).status).toBe(204);
      expect((await agent.call('getFlow', { params: { flowName: 'short' } })).status).toBe(404);
      expect((await agent.call('getFlow', { params: { flowName: 'short' }, query: { version: '1' } })).status).toBe(404);
    } finally {
      await release(agent, id);
    }
  });
});
