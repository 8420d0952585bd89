// Replays in a row (acceptance tier): the 10-step tour of the sample app is recorded once, then
// replayed 20 times on one session; every run must be clean. Real Chromium, gateway, worker and
// Postgres, as in flows.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { webFarm } from '../helpers/web-device.js';

const REPLAYS = 20;
const tap = (target: string, role?: string) => ({ action: 'tap', target, ...(role ? { role } : {}) });
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

let farm: Farm;
let provider: WebProvider;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
}, 120_000);
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

it(`replays the recorded tour ${REPLAYS} times in a row: ${REPLAYS} clean runs`, async () => {
  const agent = await farm.token('agent', 'replays');
  const id = await settledSession(agent);
  const at = { params: { sessionId: id } };
  expect((await agent.call('startRecording', { ...at, body: { name: 'tour' } })).status).toBe(201);
  expect((await agent.call('runSteps', { ...at, body: { steps: TASK } })).body.divergence).toBeNull();
  expect((await agent.call('saveRecording', at)).status).toBe(201);
  const perStep: number[] = [];
  const outcomes: string[] = [];
  for (let i = 0; i < REPLAYS; i++) {
    const run = await agent.call('replayFlow', { ...at, body: { flow: 'tour' } });
    expect(run.status, run.text.slice(0, 300)).toBe(200);
    outcomes.push(run.body.divergence ? `run ${i}: ${run.body.divergence.code} at ${run.body.divergence.index}: ${run.body.divergence.message}` : 'clean');
    perStep.push(run.body.totalMs / TASK.length);
  }
  perStep.sort((a, b) => a - b);
  console.log(`${REPLAYS} replays: median ${Math.round(perStep[REPLAYS >> 1]!)} ms a step (${Math.round(perStep[0]!)}–${Math.round(perStep.at(-1)!)})`);
  expect(outcomes.filter((o) => o !== 'clean')).toEqual([]);
  await agent.call('releaseSession', at);
}, 600_000);
