// A run whose caller has stopped waiting: the rules' retry of a failed step is not begun, and the
// refusal ends the run rather than being triaged as one more failed step.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../workers/acting/act.js';
import { delay } from '../../workers/clock.js';
import { withDeadline } from '../../workers/acting/deadline.js';
import { StepRunner } from '../../workers/acting/runner.js';
import { DeviceError } from '../../workers/devices/backend.js';
import { readScreen } from '../../workers/understanding/screen.js';
import type { Read } from '../../workers/understanding/service.js';
import { listScreen } from '../helpers/trees.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

/** An actor whose every tap is refused by the device after `takesMs` of the clock's time, before any input is played. */
function refusingActor(clock: VirtualClock, takesMs: number) {
  const calls: number[] = [];
  const eyes = { activity: { isSettled: () => true, lastMotion: undefined }, wait: async () => ({ status: 'settled', waitedMs: 0 }) };
  // The screen a divergence report describes: a real reading of a small list screen.
  const read = {
    reading: readScreen(listScreen('Inbox', ['Alice', 'Bob']), 'web'),
    identified: { node: { id: 'inbox', name: 'Inbox' }, known: true },
  } as unknown as Read;
  const actor = {
    quietMs: 50,
    logger: pino({ level: 'silent' }),
    eyesOf: () => eyes,
    backendOf: () => ({}),
    understanding: {
      current: async () => ({ read }),
      number: () => undefined,
      header: () => ({ device: 'web-1', screenId: 'inbox', name: 'Inbox', known: true }),
    },
    act: async () => {
      calls.push(clock.now());
      await delay(clock, takesMs);
      throw new DeviceError('DEVICE_FAILED', 'the browser refused the input');
    },
  } as unknown as Actor;
  return { actor, calls };
}

describe('the triage loop of a run', () => {
  it('retries a refused tap once while the caller waits (the rule this test leans on)', async () => {
    const clock = new VirtualClock();
    const { actor, calls } = refusingActor(clock, 10);
    const run = withDeadline(10_000, () => new StepRunner(actor).run('web-1', 1, 'team', { steps: [{ action: 'tap', target: 'Send' }] }), clock);
    const answer = await clock.until(run);
    if ('error' in answer) throw answer.error;
    const out = answer.value;
    expect(calls).toHaveLength(2);
    expect(out.steps[0]!.triage.map((t) => t.decision)).toEqual(['retry', 'stop']);
    expect(out.divergence).toMatchObject({ index: 0, code: 'action-failed', screen: { id: 'inbox' } });
  });

  it('does not begin the retry once the caller has stopped waiting, and answers COMMAND_TIMEOUT', async () => {
    const clock = new VirtualClock();
    const { actor, calls } = refusingActor(clock, 150);
    const run = withDeadline(100, () => new StepRunner(actor).run('web-1', 1, 'team', { steps: [{ action: 'tap', target: 'Send' }] }), clock);
    const answer = await clock.until(run);
    expect(answer).toMatchObject({
      tookMs: 150, // the refused tap's own time: the deadline passed during it, so no retry follows
      error: { code: 'COMMAND_TIMEOUT', message: expect.stringContaining('the retry the rules chose for step 0 was not begun') },
    });
    await clock.advance(300);
    expect(calls).toHaveLength(1);
  });
});
