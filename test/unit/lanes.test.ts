// One input-bearing call at a time per device; other devices never wait. On a virtual clock: each
// call's work and each caller's deadline fall at exact instants.
import { describe, expect, it } from 'vitest';
import { DeviceLanes } from '../../workers/acting/lanes.js';
import { delay } from '../../workers/clock.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

function rig() {
  const clock = new VirtualClock();
  return { clock, lanes: new DeviceLanes(clock), tick: (ms: number) => delay(clock, ms) };
}

describe('device lanes', () => {
  it('runs calls on one device one after another, in order, and those on others alongside', async () => {
    const { clock, lanes, tick } = rig();
    const log: string[] = [];
    const call = (id: string, name: string, ms: number) =>
      lanes.run(id, async () => {
        log.push(`${name} start@${clock.now() - 1000}`);
        await tick(ms);
        log.push(`${name} end@${clock.now() - 1000}`);
        return name;
      });
    const all = await clock.until(Promise.all([call('a', 'a1', 40), call('a', 'a2', 5), call('b', 'b1', 10)]));
    expect(all).toMatchObject({ value: ['a1', 'a2', 'b1'], tookMs: 45 });
    // a2 begins when a1 ends, never beside it; b1 does not wait for a.
    expect(log).toEqual(['a1 start@0', 'b1 start@0', 'b1 end@10', 'a1 end@40', 'a2 start@40', 'a2 end@45']);
    expect(lanes.busy).toBe(0);
  });

  it("does not begin a call whose caller's time ran out while it waited its turn", async () => {
    const { clock, lanes, tick } = rig();
    let ran = false;
    const slow = lanes.run('a', () => tick(60).then(() => 'slow'), 1000);
    const late = lanes.run(
      'a',
      async () => {
        ran = true;
      },
      20,
    );
    expect(await clock.until(late)).toMatchObject({
      tookMs: 20,
      error: { name: 'DeviceError', code: 'COMMAND_TIMEOUT', message: expect.stringContaining('was not begun') },
    });
    expect(ran).toBe(false);
    expect(await clock.until(slow)).toMatchObject({ value: 'slow', tookMs: 40 });
    // With time enough, the next call runs as usual.
    expect(await clock.until(lanes.run('a', async () => 'next', 1000))).toMatchObject({ value: 'next', tookMs: 0 });
  });

  it("gives up waiting at the caller's deadline, and a call that gave up never lets the next one in beside the one running", async () => {
    const { clock, lanes, tick } = rig();
    const log: string[] = [];
    const first = lanes.run(
      'a',
      async () => {
        log.push('first start');
        await tick(200);
        log.push('first end');
      },
      5000,
    );
    const gaveUp = lanes.run('a', async () => log.push('second ran'), 50);
    // Answered at its own deadline, not the first's end.
    expect(await clock.until(gaveUp)).toMatchObject({ tookMs: 50, error: { code: 'COMMAND_TIMEOUT' } });
    const third = lanes.run('a', async () => log.push('third start'), 5000);
    expect(await clock.until(Promise.all([first, third]))).toMatchObject({ tookMs: 150 });
    expect(log).toEqual(['first start', 'first end', 'third start']);
  });

  it('goes on after a call that failed, and gives its caller the failure', async () => {
    const { clock, lanes, tick } = rig();
    const failed = lanes.run('a', async () => {
      await tick(5);
      throw new Error('the drag was refused');
    });
    const next = lanes.run('a', async () => 'ran');
    expect(await clock.until(failed)).toMatchObject({ tookMs: 5, error: { message: 'the drag was refused' } });
    expect(await clock.until(next)).toMatchObject({ value: 'ran', tookMs: 0 });
  });
});
