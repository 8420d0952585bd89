// Acting: a saved 10-step flow of the sample app replayed through the API on real Chromium, zero
// model calls. Replay time per step (animation included) and, per step, how long the action took
// beyond the app's own animation (touch, settle's quiet window and probe, the read and the verdict):
// the sample app's animations are known from its CSS, so they can be taken out honestly.
import { pino } from 'pino';
import { PROFILES } from '../../../workers/devices/web/profiles.js';
import { WebProvider } from '../../../workers/devices/web/provider.js';
import { startFarm } from '../../helpers/farm.js';
import { settledSession } from '../../helpers/sessions.js';
import { waitFor } from '../../helpers/wait.js';
import { summarise, type Figure, type Suite } from '../harness.js';

const tap = (target: string, role?: string) => ({ action: 'tap', target, ...(role ? { role } : {}) });
// Each step with the length of the animation it sets off in the sample app (app.css: a push or pop
// 350 ms, a switch's knob 200 ms, a tab switch none).
const TASK: [ReturnType<typeof tap>, number][] = [
  [tap('#message-2'), 350],
  [tap('Back to Inbox'), 350],
  [tap('Search', 'tab'), 0],
  [tap('Settings', 'tab'), 0],
  [tap('Notifications'), 350],
  [tap('#switch-badges'), 200],
  [tap('Back to Settings'), 350],
  [tap('Privacy'), 350],
  [tap('Back to Settings'), 350],
  [tap('Inbox', 'tab'), 0],
];
const REPLAYS = 8;

export const actingSuite: Suite = {
  name: 'acting',
  describe: 'replay time per step of a saved 10-step flow, and action-to-settled-result time beyond the animation',
  async run(): Promise<Figure[]> {
    const farm = await startFarm();
    const provider = new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium: undefined, logger: pino({ level: 'silent' }) });
    await farm.addWorkerWith([provider]);
    const S = 'acting';
    try {
      await waitFor('device ready', () => provider.device('web-1')!.health.state === 'ready' || undefined, 20_000);
      const agent = await farm.token('agent', 'bench');
      const id = await settledSession(agent);
      const at = { params: { sessionId: id } };
      await agent.call('startRecording', { ...at, body: { name: 'bench' } });
      const first = await agent.call('runSteps', { ...at, body: { steps: TASK.map(([s]) => s) } });
      if (first.body.divergence) throw new Error(`recording run stopped: ${first.body.divergence.message}`);
      await agent.call('saveRecording', at);
      const perStep: number[] = [];
      const beyond: number[] = [];
      const settleOverhead: number[] = [];
      for (let i = 0; i < REPLAYS; i++) {
        const run = await agent.call('replayFlow', { ...at, body: { flow: 'bench' } });
        if (run.status !== 200 || run.body.divergence) throw new Error(`replay ${i}: ${run.text.slice(0, 300)}`);
        perStep.push(run.body.totalMs / TASK.length);
        run.body.steps.forEach((s: { result: { timings: { totalMs: number; touchMs: number } } }, k: number) => {
          beyond.push(s.result.timings.totalMs - TASK[k]![1]);
          settleOverhead.push(s.result.timings.totalMs - s.result.timings.touchMs - TASK[k]![1]);
        });
      }
      return [
        summarise(S, 'replay time per step, sample app, animation included (10-step flow)', 'ms', perStep, { goal: '≤ 600 ms' }),
        summarise(S, "action to settled result, beyond the app's animation (touch included)", 'ms', beyond, { goal: '≤ 300 ms' }),
        summarise(S, 'settled result beyond the animation, after the touch was played', 'ms', settleOverhead, {
          note: 'the quiet window (250 ms by default) is most of it',
        }),
      ];
    } finally {
      await farm.stop();
      await provider.close();
    }
  },
};
