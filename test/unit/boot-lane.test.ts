// The boot lane: a web device that would not come up is booted again with backoff until it does,
// and the host's page loads take turns (page-loads.ts). Twenty pages loading at once on a starved host all
// missed their load together and stayed broken until the worker was restarted.
// The devices here are stand-ins that count their boots; real Chromium is in test/browser/boot-lane.test.ts.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { delay } from '../../workers/clock.js';
import { BootLane, type Bootable } from '../../workers/devices/web/boot-lane.js';
import { PageLoads } from '../../workers/devices/web/page-loads.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const logger = pino({ level: 'silent' });

/** A lane on a virtual clock whose backoff always takes its ceiling: retries 20, 40, 80, 80 ms after each failure. */
function rig() {
  const clock = new VirtualClock();
  const lane = new BootLane(logger, { retryMinMs: 20, retryMaxMs: 80, clock, random: () => 1 });
  /** A device whose boots take `ms` of the clock's time and fail while `failures` lasts. */
  const device = (localId: string, opts: { ms?: number; failures?: number } = {}) => {
    let failures = opts.failures ?? 0;
    const d = {
      localId,
      boots: [] as number[],
      up: false,
      broken: [] as string[],
      running: 0,
      maxRunning: 0,
      async boot() {
        d.boots.push(clock.now());
        d.running++;
        d.maxRunning = Math.max(d.maxRunning, d.running);
        try {
          await delay(clock, opts.ms ?? 10);
          if (failures-- > 0) throw new Error('page.goto: Timeout 30000ms exceeded.');
          d.up = true;
        } finally {
          d.running--;
        }
      },
      bootFailed(reason: string) {
        d.up = false;
        d.broken.push(reason);
      },
    } satisfies Bootable & Record<string, unknown>;
    return d;
  };
  return { clock, lane, device };
}

describe('the boot lane', () => {
  it('boots a device again after each failure until it comes up, saying broken with the attempt meanwhile', async () => {
    const { clock, lane, device } = rig();
    const d = device('web-1', { failures: 2 });
    const t0 = clock.now();
    const first = await clock.until(lane.boot(d));
    expect(first).toMatchObject({ value: false, tookMs: 10 }); // the first attempt's outcome
    await clock.advance(1_000);
    expect(d.up).toBe(true);
    // Boots at 0; failed at 10, again 20 later; failed at 40, again 40 later; up at 90.
    expect(d.boots.map((t) => t - t0)).toEqual([0, 30, 80]);
    expect(d.broken).toHaveLength(2);
    expect(d.broken[0]).toMatch(/^would not start \(attempt 1, next in \d+ s\): page\.goto: Timeout/);
    expect(d.broken[1]).toMatch(/^would not start \(attempt 2,/);
    expect(clock.pending).toBe(0); // up: no more attempts
  });

  it('stops retrying a cancelled device, and a closed lane boots nothing', async () => {
    const { clock, lane, device } = rig();
    const d = device('web-1', { failures: 1_000 });
    await clock.until(lane.boot(d));
    await clock.advance(25); // the first retry (at 30) is under way ...
    await clock.advance(10);
    expect(d.boots).toHaveLength(2);
    lane.cancel('web-1');
    await clock.advance(1_000);
    expect(d.boots).toHaveLength(2); // ... and the one it would have scheduled never comes
    expect(clock.pending).toBe(0);
    const e = device('web-2', { failures: 1_000 });
    await clock.until(lane.boot(e));
    lane.close();
    await clock.advance(1_000);
    expect(e.boots).toHaveLength(1);
    expect(await lane.boot(device('web-3'))).toBe(false);
  });

  it('never builds one device twice at once: a boot asked for during another waits for it', async () => {
    const { clock, lane, device } = rig();
    const d = device('web-1', { ms: 60 });
    const a = lane.boot(d);
    await clock.advance(10);
    const b = lane.boot(d); // a crash's reboot while the first boot is still loading
    const both = await clock.until(Promise.all([a, b]));
    expect(both).toMatchObject({ value: [true, true], tookMs: 110 }); // the second began when the first ended, at 60
    expect(d.maxRunning).toBe(1);
    expect(d.boots).toHaveLength(2);
  });
});

describe('page loads on one host', () => {
  it('run four at a time, in the order asked, and all of them, failures included', async () => {
    const loads = new PageLoads(4);
    let live = 0;
    let max = 0;
    const order: number[] = [];
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        loads.run(async () => {
          order.push(i);
          max = Math.max(max, ++live);
          await Promise.resolve();
          live--;
          if (i % 5 === 0) throw new Error(`load ${i} failed`);
          return i;
        }),
      ),
    );
    expect(max).toBe(4);
    expect(loads.peak).toBe(4);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(4); // a failed load gives its turn back
    expect(loads.waiting).toBe(0);
    expect(await loads.run(async () => 'next')).toBe('next');
  });
});
