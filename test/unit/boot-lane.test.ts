// The boot lane: a web device that would not come up is booted again with backoff until it does,
// and the host's page loads take turns (page-loads.ts). Twenty pages loading at once on a starved host all
// missed their load together and stayed broken until the worker was restarted.
// The devices here are stand-ins that count their boots; real Chromium is in test/browser/boot-lane.test.ts.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BootLane, type Bootable } from '../../workers/devices/web/boot-lane.js';
import { PageLoads } from '../../workers/devices/web/page-loads.js';
import { sleep } from '../helpers/wait.js';

const logger = pino({ level: 'silent' });
const fast = { retryMinMs: 20, retryMaxMs: 80 };

/** A device whose boots take `ms` and fail while `failures` lasts. */
function device(localId: string, opts: { ms?: number; failures?: number } = {}) {
  let failures = opts.failures ?? 0;
  const d = {
    localId,
    boots: 0,
    up: false,
    broken: [] as string[],
    running: 0,
    maxRunning: 0,
    async boot() {
      d.boots++;
      d.running++;
      d.maxRunning = Math.max(d.maxRunning, d.running);
      try {
        await sleep(opts.ms ?? 10);
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
}

const until = async (what: string, ok: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
};

describe('the boot lane', () => {
  it('boots a device again after each failure until it comes up, saying broken with the attempt meanwhile', async () => {
    const lane = new BootLane(logger, fast);
    const d = device('web-1', { failures: 2 });
    expect(await lane.boot(d)).toBe(false); // the first attempt's outcome
    await until('the device up', () => d.up);
    expect(d.boots).toBe(3);
    expect(d.broken).toHaveLength(2);
    expect(d.broken[0]).toMatch(/^would not start \(attempt 1, next in \d+ s\): page\.goto: Timeout/);
    expect(d.broken[1]).toMatch(/^would not start \(attempt 2,/);
    await sleep(200);
    expect(d.boots).toBe(3); // up: no more attempts
  });

  it('stops retrying a cancelled device, and a closed lane boots nothing', async () => {
    const lane = new BootLane(logger, fast);
    const d = device('web-1', { failures: 1_000 });
    await lane.boot(d);
    await until('a retry', () => d.boots >= 2);
    lane.cancel('web-1');
    const after = d.boots;
    await sleep(300);
    expect(d.boots).toBeLessThanOrEqual(after + 1); // at most the attempt already under way
    const e = device('web-2', { failures: 1_000 });
    await lane.boot(e);
    lane.close();
    const closedAt = e.boots;
    await sleep(300);
    expect(e.boots).toBe(closedAt);
    expect(await lane.boot(device('web-3'))).toBe(false);
  });

  it('never builds one device twice at once: a boot asked for during another waits for it', async () => {
    const lane = new BootLane(logger, fast);
    const d = device('web-1', { ms: 60 });
    const a = lane.boot(d);
    await sleep(10);
    const b = lane.boot(d); // a crash's reboot while the first boot is still loading
    expect(await a).toBe(true); // already loading: it finishes
    expect(await b).toBe(true);
    expect(d.maxRunning).toBe(1);
    expect(d.boots).toBe(2);
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
          await sleep(10);
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
