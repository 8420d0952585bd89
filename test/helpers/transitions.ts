/// <reference lib="dom" />
// A scripted suite of real transitions on the sample app, each with the truth: the kind, and for
// scrolls the distance the content really moved (read from scrollTop). Used by the motion test and
// the benchmark; the classifier never sees the truth.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TreeNode } from '../../workers/devices/backend.js';
import * as g from '../../workers/devices/gestures.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { FrameAnalysis } from '../../workers/perception/analysis.js';
import type { Eyes } from '../../workers/perception/eyes.js';
import type { TransitionKind } from '../../workers/perception/motion.js';

export interface Outcome {
  name: string;
  expected: TransitionKind;
  got: TransitionKind;
  status: string;
  /** For scrolls: what the content moved (points, positive = towards the end) and what was measured. */
  trueOffset?: number;
  measuredOffset?: number;
  /** With `record`: the frames the eyes analysed from the mark to the answer, for offline study. */
  frames?: FrameAnalysis[];
}

interface Ctx {
  device: WebDevice;
  eyes: Eyes;
  sample: string;
  record?: boolean;
}

let loads = 0;
async function show(ctx: Ctx, route: string): Promise<void> {
  await ctx.device.open(`${ctx.sample}?suite=${++loads}#/${route}`);
  await ctx.device.currentPageForTests.waitForSelector(`.screen[data-route="${route}"]:not([hidden])`);
  if (route === 'inbox') await ctx.device.currentPageForTests.waitForSelector('[data-testid="message-1"]');
  await sleep(600);
  await ctx.eyes.idle();
}

const centre = (n: TreeNode) => ({ x: n.frame.x + n.frame.width / 2, y: n.frame.y + n.frame.height / 2 });
async function node(ctx: Ctx, pred: (n: TreeNode) => boolean): Promise<TreeNode> {
  const found = (await ctx.device.tree()).nodes.find(pred);
  if (!found) throw new Error('element not found for a scripted transition');
  return found;
}
const scrollTop = (ctx: Ctx) =>
  ctx.device.currentPageForTests.evaluate(() => (document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement).scrollTop);

/** Marks, acts, waits for the screen to settle, and records what the eyes made of it. */
async function step(ctx: Ctx, name: string, expected: TransitionKind, act: () => Promise<void>, out: Outcome[], scroll = false): Promise<void> {
  await sleep(150);
  await ctx.eyes.idle();
  const mark = ctx.eyes.mark(1);
  const before = scroll ? await scrollTop(ctx) : 0;
  await act();
  const res = await ctx.eyes.wait({ for: 'settled', timeoutMs: 4000, quietMs: 300, changeTimeoutMs: 1500, since: mark });
  const got: TransitionKind = res.status === 'no-change' ? 'none' : (res.transition?.kind ?? 'none');
  const outcome: Outcome = { name, expected, got, status: res.status };
  if (ctx.record && mark.frame && res.frame) outcome.frames = ctx.eyes.store.range(mark.frame.seq, res.frame.seq);
  if (scroll) {
    outcome.trueOffset = (await scrollTop(ctx)) - before;
    if (res.transition?.offsetPt) outcome.measuredOffset = res.transition.offsetPt.y;
  }
  out.push(outcome);
}

export async function runTransitionSuite(ctx: Ctx): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const { device } = ctx;
  // push and pop: a message and back, eight times
  await show(ctx, 'inbox');
  for (let i = 1; i <= 8; i++) {
    await step(ctx, `open message ${i}`, 'push', async () => device.touch(g.tap(centre(await node(ctx, (n) => n.id === `message-${i}`)))), out);
    await step(ctx, `back from message ${i}`, 'pop', async () => device.touch(g.tap(centre(await node(ctx, (n) => n.id === 'back')))), out);
  }
  // scrolls by known amounts, both ways
  for (const [i, d] of [200, 300, 150, 250, 100, 300].entries()) {
    await step(
      ctx,
      `scroll down ${d} pt (#${i + 1})`,
      'scroll',
      () => device.touch(g.drag({ x: 200, y: 600 }, { x: 200, y: 600 - d }, { slopPt: device.touchSlopPt })),
      out,
      true,
    );
    await step(
      ctx,
      `scroll up ${d} pt (#${i + 1})`,
      'scroll',
      () => device.touch(g.drag({ x: 200, y: 300 }, { x: 200, y: 300 + d }, { slopPt: device.touchSlopPt })),
      out,
      true,
    );
  }
  // sheets: compose up and cancel
  await show(ctx, 'inbox');
  for (let i = 1; i <= 4; i++) {
    await step(
      ctx,
      `compose sheet up #${i}`,
      'sheet-up',
      async () => device.touch(g.tap(centre(await node(ctx, (n) => n.label === 'Compose' && n.role === 'button')))),
      out,
    );
    await step(
      ctx,
      `compose sheet down #${i}`,
      'sheet-down',
      async () => device.touch(g.tap(centre(await node(ctx, (n) => n.label === 'Cancel' && n.role === 'button')))),
      out,
    );
  }
  // alerts: delete asks, cancel dismisses
  await show(ctx, 'inbox/4');
  for (let i = 1; i <= 4; i++) {
    await step(ctx, `delete alert #${i}`, 'alert', async () => device.touch(g.tap(centre(await node(ctx, (n) => n.id === 'delete')))), out);
    await step(ctx, `alert cancelled #${i}`, 'alert-dismissed', async () => device.touch(g.tap(centre(await node(ctx, (n) => n.id === 'alert-cancel')))), out);
  }
  // tab switches
  await show(ctx, 'settings');
  for (const [i, tab] of ['Inbox', 'Search', 'Settings', 'Search', 'Inbox', 'Settings', 'Inbox', 'Settings'].entries()) {
    await step(
      ctx,
      `tab ${tab} (#${i + 1})`,
      'replace',
      async () => device.touch(g.tap(centre(await node(ctx, (n) => n.role === 'tab' && n.label === tab)))),
      out,
    );
  }
  // nothing: taps on text that does nothing
  await show(ctx, 'settings/notifications');
  for (let i = 1; i <= 4; i++) {
    await step(
      ctx,
      `tap on a label #${i}`,
      'none',
      async () => device.touch(g.tap(centre(await node(ctx, (n) => n.role === 'text' && n.label.startsWith('Changes apply'))))),
      out,
    );
  }
  return out;
}

export function confusion(outcomes: Outcome[]): string {
  const kinds = [...new Set([...outcomes.map((o) => o.expected), ...outcomes.map((o) => o.got)])];
  const header = `| expected \\ got | ${kinds.join(' | ')} |`;
  const rows = [...new Set(outcomes.map((o) => o.expected))].map(
    (e) => `| ${e} | ${kinds.map((k) => outcomes.filter((o) => o.expected === e && o.got === k).length || '').join(' | ')} |`,
  );
  return [header, `|${'---|'.repeat(kinds.length + 1)}`, ...rows].join('\n');
}
