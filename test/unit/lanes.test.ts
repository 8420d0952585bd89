// One input-bearing call at a time per device; other devices never wait.
import { describe, expect, it } from 'vitest';
import { DeviceLanes } from '../../workers/acting/lanes.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('device lanes', () => {
  it('runs calls on one device one after another, in order, and those on others alongside', async () => {
    const lanes = new DeviceLanes();
    const log: string[] = [];
    const call = (id: string, name: string, ms: number) =>
      lanes.run(id, async () => {
        log.push(`${name} start`);
        await tick(ms);
        log.push(`${name} end`);
        return name;
      });
    const results = await Promise.all([call('a', 'a1', 40), call('a', 'a2', 5), call('b', 'b1', 10)]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a1 end')).toBeLessThan(log.indexOf('a2 start')); // never interleaved
    expect(log.indexOf('b1 end')).toBeLessThan(log.indexOf('a1 end')); // b did not wait for a
    expect(lanes.busy).toBe(0);
  });

  it("does not begin a call whose caller's time ran out while it waited its turn", async () => {
    const lanes = new DeviceLanes();
    let ran = false;
    const slow = lanes.run('a', () => tick(60).then(() => 'slow'), 1000);
    const late = lanes.run(
      'a',
      async () => {
        ran = true;
      },
      20,
    );
    await expect(late).rejects.toMatchObject({ name: 'DeviceError', code: 'COMMAND_TIMEOUT', message: expect.stringContaining('was not begun') });
    expect(ran).toBe(false);
    await expect(slow).resolves.toBe('slow');
    // With time enough, the next call runs as usual.
    await expect(lanes.run('a', async () => 'next', 1000)).resolves.toBe('next');
  });

  it("gives up waiting at the caller's deadline, and a call that gave up never lets the next one in beside the one running", async () => {
    const lanes = new DeviceLanes();
    const log: string[] = [];
    const t0 = performance.now();
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
    await expect(gaveUp).rejects.toMatchObject({ code: 'COMMAND_TIMEOUT' });
    expect(performance.now() - t0).toBeLessThan(190); // answered at its own deadline, not the first's end
    const third = lanes.run('a', async () => log.push('third start'), 5000);
    await Promise.all([first, third]);
    expect(log).toEqual(['first start', 'first end', 'third start']);
  });

  it('goes on after a call that failed, and gives its caller the failure', async () => {
    const lanes = new DeviceLanes();
    const failed = lanes.run('a', async () => {
      await tick(5);
      throw new Error('the drag was refused');
    });
    const next = lanes.run('a', async () => 'ran');
    await expect(failed).rejects.toThrow('the drag was refused');
    await expect(next).resolves.toBe('ran');
  });
});
