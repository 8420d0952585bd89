/// <reference lib="dom" />
// A minute of the sample app's live clock (hh:mm:ss, in the navigation bar, ticking every second)
// on an otherwise still screen: the eyes see every tick arrive and call none of them a change. A
// file of its own, so the minute runs beside the other browser tests instead of after them.
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as g from '../../workers/devices/gestures.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { Eyes } from '../../workers/perception/eyes.js';
import { sleep } from '../helpers/wait.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;
let eyes: Eyes;

beforeAll(async () => {
  ({ provider, device } = await webDevice());
  eyes = new Eyes(device, { retentionMs: 60_000, budgetBytes: 64 << 20, quietMs: 250 }, pino({ level: 'silent' }));
  eyes.start();
});
afterAll(async () => {
  eyes?.stop();
  await provider?.close();
});

it('60 s of the live clock alone is not a change, though every tick arrives as a frame', async () => {
  const page = device.currentPageForTests;
  await device.open(`${provider.sampleUrl}?clock=1#/inbox`);
  await page.waitForSelector('[data-testid="message-1"]');
  await sleep(1000);
  await eyes.idle();
  const clockAt = () => page.evaluate(() => document.querySelector('.screen:not([hidden]) .time-now')!.textContent);
  const first = await clockAt();
  const mark = eyes.mark(1);
  const wait = await eyes.wait({ for: 'change', timeoutMs: 60_000, quietMs: 250, changeTimeoutMs: 60_000, since: mark });
  const last = await clockAt();
  const answer = eyes.changes(mark);
  // What the eyes said, for a failure to show (CI once saw the wait end after 30 s, status unrecorded;
  // hour and midnight rollovers of this clock were checked and are ignored as they should be).
  const said = JSON.stringify({
    wait: { status: wait.status, waitedMs: wait.waitedMs },
    changed: answer.changed,
    regions: answer.regions,
    ignored: answer.ignored,
    framesSince: answer.framesSince,
    first,
    last,
  });
  expect(wait.status, said).toBe('no-change');
  expect(answer.changed, said).toBe('no');
  expect(first).not.toBe(last); // the clock really ran
  expect(answer.framesSince, said).toBeGreaterThanOrEqual(55); // a frame for (nearly) every tick
  expect(answer.settled).toBe(true);
  // The same eyes still see a real change at once: the silence above is not blindness.
  const mark2 = eyes.mark(1);
  const row = (await device.tree()).nodes.find((n) => n.id === 'message-1')!;
  await device.touch(g.tap({ x: row.frame.x + row.frame.width / 2, y: row.frame.y + row.frame.height / 2 }));
  const seen = await eyes.wait({ for: 'change', timeoutMs: 3000, quietMs: 250, changeTimeoutMs: 3000, since: mark2 });
  expect(seen.status).toBe('changed');
}, 90_000);
