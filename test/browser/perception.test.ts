/// <reference lib="dom" />
// Perception on real Chromium and the sample app: the eyes watch the device's own frame stream,
// and every claim is checked against what the page really did (the DOM, scrollTop, the clock).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TreeNode } from '../../workers/devices/backend.js';
import * as g from '../../workers/devices/gestures.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Box } from '../../workers/perception/analysis.js';
import { Eyes } from '../../workers/perception/eyes.js';
import { confusion, runTransitionSuite } from '../helpers/transitions.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { webDevice } from '../helpers/web-device.js';

const QUIET = 250;
let provider: WebProvider;
let device: WebDevice;
let eyes: Eyes;
let sample: string;

beforeAll(async () => {
  ({ provider, device, sample } = await webDevice());
  eyes = new Eyes(device, { retentionMs: 60_000, budgetBytes: 64 << 20, quietMs: QUIET }, pino({ level: 'silent' }));
  eyes.start();
});
afterAll(async () => {
  eyes?.stop();
  await provider?.close();
});

const page = () => device.currentPageForTests;
let loads = 0;
async function show(route: string): Promise<void> {
  await device.open(`${sample}?perception=${++loads}#/${route}`);
  await page().waitForSelector(`.screen[data-route="${route}"]:not([hidden])`, { timeout: 5000 });
  if (route === 'inbox') await page().waitForSelector('[data-testid="message-1"]');
  await sleep(700);
  await eyes.idle();
}
const centre = (n: TreeNode) => ({ x: n.frame.x + n.frame.width / 2, y: n.frame.y + n.frame.height / 2 });
async function find(pred: (n: TreeNode) => boolean, what: string): Promise<TreeNode> {
  const node = (await device.tree()).nodes.find(pred);
  if (!node) throw new Error(`no ${what} in the tree`);
  return node;
}
const tap = async (pred: (n: TreeNode) => boolean, what: string) => device.touch(g.tap(centre(await find(pred, what))));
const rectOf = (selector: string) =>
  page().evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, selector);
const contains = (outer: Box, inner: Box, slack: number) =>
  outer.x <= inner.x + slack &&
  outer.y <= inner.y + slack &&
  outer.x + outer.width >= inner.x + inner.width - slack &&
  outer.y + outer.height >= inner.y + inner.height - slack;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('changed since a mark, on the sample app', () => {
  it('an idle screen sends no frames, and nothing is claimed to have advanced', async () => {
    await show('settings');
    const mark = eyes.mark(1);
    await sleep(2000);
    const answer = eyes.changes(mark);
    expect(answer).toMatchObject({ changed: 'no', framesSince: 0, fraction: 0, settled: true });
    expect(answer.frame!.seq).toBe(mark.frame!.seq);
    expect(answer.frame!.ageMs).toBeGreaterThanOrEqual(2000);
  });

  it('a push that finished before the agent polls a second later is changed = yes', async () => {
    await show('inbox');
    const mark = eyes.mark(1);
    await tap((n) => n.id === 'message-3', 'message 3');
    await sleep(1000);
    // The agent polls once the screen has been still a while (under load the push, and the probe's
    // own frame that confirms the settle, can end later than a second after the tap).
    await waitFor(
      'the screen still for 300 ms',
      async () => {
        await eyes.idle();
        return performance.now() - eyes.store.newest()!.at > 300 || undefined;
      },
      5000,
      25,
    );
    const answer = eyes.changes(mark);
    // Comparing the newest frame with the one before would say "nothing changed": the screen is still.
    expect(answer.frame!.ageMs).toBeGreaterThan(300);
    expect(answer.changed).toBe('yes');
    expect(answer.fraction).toBeGreaterThan(0.3);
    expect(answer.settled).toBe(true);
    // A transition was seen and classified; how often it is named a push is the calibration's to
    // score over 56 of them (≥ 90 %). Under load it may be withheld as a replace, but never a pop:
    // CI once saw this push called one (frames out of order, motion.ts and sliding.ts).
    expect(answer.transition?.kind).toMatch(/^(push|replace)$/);
    if (answer.transition?.kind !== 'push') console.log(`push classified as ${answer.transition?.kind}: ${JSON.stringify(answer.transition)}`);
    expect(await page().evaluate(() => location.hash)).toBe('#/inbox/3');
  });

  it('one switch flip is a change, in a region where the switch is', async () => {
    await show('settings');
    const wifi = await find((n) => n.role === 'switch' && n.label === 'Wi-Fi', 'Wi-Fi switch');
    const mark = eyes.mark(1);
    await device.touch(g.tap(centre(wifi)));
    const r = await eyes.wait({ for: 'settled', timeoutMs: 3000, quietMs: QUIET, changeTimeoutMs: 1500, since: mark });
    expect(r.status).toBe('settled');
    const answer = eyes.changes(mark);
    expect(answer.changed).toBe('yes');
    expect(answer.fraction).toBeLessThan(0.05);
    expect(answer.regions.some((box) => overlaps(box, wifi.frame))).toBe(true);
  });
});

describe('settle, on the sample app', () => {
  it('a switch flip settles only once its 200 ms animation is over, flip after flip', async () => {
    // Once in about four flips the first frames of the eased knob were too small against the
    // tracker's anchor, and the wait answered settled 40 ms after the tap, mid-animation.
    await show('settings/notifications');
    const badges = await find((n) => n.id === 'switch-badges', 'Badges switch');
    const waited: number[] = [];
    for (let i = 0; i < 8; i++) {
      const mark = eyes.mark(1);
      const tapped = performance.now();
      await device.touch(g.tap(centre(badges)));
      const r = await eyes.wait({ for: 'settled', timeoutMs: 3000, quietMs: QUIET, changeTimeoutMs: 1500, since: mark });
      expect(r.status).toBe('settled');
      waited.push(Math.round(performance.now() - tapped));
      await sleep(300);
    }
    // The knob moves for 200 ms and the screen must then be still for the quiet window.
    expect(Math.min(...waited), waited.join(', ')).toBeGreaterThanOrEqual(200 + QUIET);
  });

  it('the endless spinner never settles, and the timeout names its box', async () => {
    await show('settings/loading');
    const spinner = await rectOf('.screen:not([hidden]) .spinner.big');
    const r = await eyes.wait({ for: 'settled', timeoutMs: 1500, quietMs: QUIET, changeTimeoutMs: 1500, since: undefined });
    expect(r.status).toBe('not-settled');
    const box = r.movingRegion!.box;
    expect(contains(box, spinner, 10)).toBe(true);
    expect(box.width * box.height).toBeLessThan(spinner.width * spinner.height * 4); // the spinner, not the screen
    expect(r.movingRegion!.movingForMs).toBeGreaterThanOrEqual(1500);
    expect(eyes.changes(eyes.mark(1)).settled).toBe(false);
  });

  for (const [name, route, act] of [
    ['a tab switch', 'settings', () => tap((n) => n.role === 'tab' && n.label === 'Search', 'Search tab')],
    ['a push (350 ms animation)', 'inbox', () => tap((n) => n.id === 'message-2', 'message 2')],
  ] as const) {
    it(`${name} settles once the quiet window after the animation's end has passed`, async () => {
      await show(route);
      const mark = eyes.mark(1);
      let answeredAt = 0;
      const waiting = eyes
        .wait({ for: 'settled', timeoutMs: 4000, quietMs: QUIET, changeTimeoutMs: 2000, since: mark })
        .then((r) => ((answeredAt = performance.now()), r));
      await act();
      const r = await waiting;
      expect(r.status).toBe('settled');
      const lastChange = eyes.activity.lastMotion!; // the last frame that changed anything
      expect(answeredAt - lastChange).toBeGreaterThanOrEqual(QUIET);
      // A ceiling on behaviour (not the 4 s timeout), not a speed claim: beside the other suites on
      // 2 cores the probe and the classification have taken 270 ms more. The ≤ 100 ms goal is
      // measured by `npm run bench -- perception` (settled answer after the last motion).
      expect(answeredAt - lastChange).toBeLessThan(QUIET + 1000);
    });
  }

  it('a blinking caret in a focused field does not keep the screen from settling', async () => {
    await show('search');
    await tap((n) => n.id === 'search-field', 'search field');
    await sleep(1800); // the caret blinks (every 500 ms in Chromium)
    await eyes.idle();
    const frames = eyes.changes(eyes.mark(1)).frame!.seq;
    await sleep(1100);
    await eyes.idle();
    expect(eyes.store.newest()!.seq).toBeGreaterThan(frames); // it really is blinking: frames keep coming
    const mark = eyes.mark(1);
    await device.type('grace');
    const r = await eyes.wait({ for: 'settled', timeoutMs: 4000, quietMs: QUIET, changeTimeoutMs: 2000, since: mark });
    expect(r.status).toBe('settled');
    expect(eyes.changes(mark).changed).toBe('yes');
    // Still blinking afterwards, and settled again once the caret's new place has blinked a few
    // times (under load on 2 cores that took longer than 1.2 s once: polled, not slept).
    await waitFor('settled while the caret blinks', () => eyes.changes(eyes.mark(1)).settled || undefined, 5000);
  });
});

describe('motion, on a scripted suite of the sample app', () => {
  it('classifies at least 90 % of 56 transitions, with scroll offsets within 10 % of the real distance', async () => {
    const outcomes = await runTransitionSuite({ device, eyes, sample });
    const correct = outcomes.filter((o) => o.got === o.expected);
    console.log(`motion: ${correct.length}/${outcomes.length} correct\n${confusion(outcomes)}`);
    for (const o of outcomes.filter((x) => x.got !== x.expected)) console.log(`  missed: ${o.name}: expected ${o.expected}, got ${o.got} (${o.status})`);
    expect(outcomes.length).toBeGreaterThanOrEqual(50);
    expect(correct.length / outcomes.length).toBeGreaterThanOrEqual(0.9);
    const scrolls = outcomes.filter((o) => o.expected === 'scroll' && o.got === 'scroll');
    expect(scrolls.length).toBeGreaterThanOrEqual(10);
    // Every offset given is within 10 % of the truth. The distance is measured on the two ends' fine
    // profiles (2 pt a row), which tell a list's rows apart whether or not the frame stream in between
    // stalled: 12 of 12 given, each to the point, where the grid and the stream gave 9 and, on a
    // loaded CI host, one a list row off (−321 for −250). One is withheld only when even the fine
    // profile fits two places alike ("could not tell", never a wrong distance).
    const measured = scrolls.filter((s) => s.measuredOffset !== undefined);
    console.log(`scroll offsets given for ${measured.length}/${scrolls.length} scrolls`);
    expect(measured.length / scrolls.length).toBeGreaterThanOrEqual(0.75);
    for (const s of scrolls) {
      expect(Math.abs(s.trueOffset!)).toBeGreaterThan(50); // the scroll really happened
      if (s.measuredOffset === undefined) continue;
      expect(Math.abs(s.measuredOffset - s.trueOffset!), `${s.name}: measured ${s.measuredOffset}, true ${s.trueOffset}`).toBeLessThanOrEqual(
        Math.abs(s.trueOffset!) * 0.1,
      );
    }
  }, 240_000);
});
