// A screen read answers in time on a starved host. A 60-minute soak on a slow machine got 149
// gateway timeouts (504) on screen reads: the tree took seconds, then the pixel tier's capture
// waited its turn and took up to its own 6 s bound, and only after that did the recognition budget
// start to count. A read now answers within its time, the capture included: with the tree, and
// saying which parts it left unread, so an agent reads again rather than losing the call.
// Real eyes on synthetic frames; the tree, the captures and the recogniser are stubs slowed on purpose,
// on a virtual clock: each read's time is exact.
import { afterEach, describe, expect, it } from 'vitest';
import type { Eyes } from '../../workers/perception/eyes.js';
import { PIXEL_BUDGET_MS } from '../../workers/understanding/ocr/read.js';
import { Canvas } from '../helpers/synthetic-screen.js';
import { QUIET_MS, tabBarTree, understandingRig } from '../helpers/understanding-rig.js';
import type { VirtualClock } from '../helpers/virtual-clock.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The quiet window and the device's confirmation pass: the screen has settled. */
async function settled(eyes: Eyes, clock: VirtualClock): Promise<void> {
  await clock.advance(QUIET_MS + 10);
  expect(eyes.activity.isSettled()).toBe(true);
}

/** The call's answer (or refusal) and how long it took on the clock. */
async function timed<T>(clock: VirtualClock, p: Promise<T>): Promise<{ value: T; tookMs: number }> {
  const r = await clock.until(p);
  if ('error' in r) throw r.error;
  return r;
}

async function refused(clock: VirtualClock, p: Promise<unknown>): Promise<{ error: unknown; tookMs: number }> {
  const r = await clock.until(p);
  if (!('error' in r)) throw new Error('expected a refusal, got an answer');
  return r;
}

describe('a screen read on a starved host', () => {
  it('answers at its budget when the capture is late, says so, is not served again, and reads the words once captures come back', async () => {
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups);
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.captureMs = 60_000; // a capture stuck behind others, as in the soak
    const {
      value: { read },
      tookMs,
    } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(tookMs).toBe(PIXEL_BUDGET_MS); // it waited for the capture as long as it could, and not a moment for the capture's own bound
    expect(counts.captures).toBe(1);
    expect(counts.recognised).toBe(0);
    expect(read.ocr).toMatchObject({ areas: 1, lines: 0, unread: 1 });
    expect(u.header('d1', read).note).toContain('text recognition stopped at its time budget');
    expect(() => u.locate('d1', 1, read, 'START')).toThrow(/text recognition stopped at its time budget with 1 of 1 area unread/);
    expect(read.memory.recall(read.identified.node.id)).toBeFalsy(); // a read missing its words is not learnt
    // Counted for the heartbeat's strain; about 4 s is not a slow read (over 5 s).
    expect(u.counts).toMatchObject({ cutShort: 1, slowReads: 0 });
    // Captures come back: the next read is not the last one served again, and it has the words.
    delays.captureMs = 0;
    const { value: again } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(again.cached).toBe(false);
    expect(again.read.ocr).toMatchObject({ lines: 1 });
    expect(again.read.ocr?.unread).toBeUndefined();
    expect(u.locate('d1', 1, again.read, 'START').how).toBe('ocr');
    expect(u.counts.cutShort).toBe(1);
  });

  it("begins no capture when the tree alone used up the read's time, and answers with the tree", async () => {
    const readAnswerMs = 1500;
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups, { readAnswerMs });
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.treeMs = readAnswerMs - 100; // leaves less than the least the pixel tier would start with
    const {
      value: { read },
      tookMs,
    } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(tookMs).toBe(readAnswerMs - 100); // the tree's time, and no capture after it
    expect(counts.trees).toBe(1);
    expect(counts.captures).toBe(0);
    expect(read.ocr).toMatchObject({ areas: 1, lines: 0, unread: 1 });
    expect(read.nodes).toBe(1); // the tree's answer
    expect(u.counts.cutShort).toBe(1);
  });

  it("gives the pixel tier what the tree left of the read's time", async () => {
    const readAnswerMs = 2000;
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups, { readAnswerMs, slowReadMs: 1500 });
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.treeMs = 800;
    delays.captureMs = 60_000;
    const {
      value: { read },
      tookMs,
    } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(counts.captures).toBe(1);
    expect(tookMs).toBe(readAnswerMs); // not the tree's 800 ms plus a whole pixel budget of 4 s
    expect(read.ocr).toMatchObject({ unread: 1 });
    expect(u.counts).toMatchObject({ cutShort: 1, slowReads: 1 }); // 2 s, over this rig's slow mark of 1.5 s
  });
});

describe('hit-test probing on a starved host', () => {
  /** A screen whose foot is a drawn tab bar (icons on a darker band) the tree reports empty. */
  const tabScreen = () => {
    const c = new Canvas(242).rect(0, 96, 48, 8, 200);
    for (const x of [5, 21, 37]) c.rect(x, 98, 6, 4, 60);
    return c;
  };

  it("stops at the read's time, answers with what it has, says so once per read, and is not learnt", async () => {
    const readAnswerMs = 1500;
    const { device, eyes, u, delays, clock } = await understandingRig(cleanups, { readAnswerMs, tree: tabBarTree });
    device.show(tabScreen());
    await settled(eyes, clock);
    delays.hitMs = 60_000; // the platform's hit tests stuck behind other work, as in the soak
    const {
      value: { read },
      tookMs,
    } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(tookMs).toBe(readAnswerMs); // not the hit test's minute
    expect(read.probe).toMatchObject({ containers: 1, found: 0, unprobed: 1 });
    expect(read.probe!.probes).toBeGreaterThan(0); // the round it stopped waiting for was spent
    expect(u.header('d1', read).note).toContain("hit-test probing stopped at the read's time");
    expect(() => u.locate('d1', 1, read, 'Tab 1')).toThrow(/hit-test probing stopped at the read's time with 1 of 1 container/);
    expect(read.memory.recall(read.identified.node.id)).toBeFalsy();
    // The pixel tier found no time left either; the read counts once.
    expect(u.counts.cutShort).toBe(1);
    // Hit tests come back: the next read probes again and finds the tabs.
    delays.hitMs = 0;
    const { value: again } = await timed(clock, u.current('d1', 1, 'team-a'));
    expect(again.cached).toBe(false);
    expect(again.read.probe).toMatchObject({ containers: 1, found: 3 });
    expect(again.read.probe?.unprobed).toBeUndefined();
    const found = u.locate('d1', 1, again.read, 'Tab 1');
    expect(again.read.reading.elements[found.index]!.label).toBe('Tab 1');
  });
});

describe('a screen read the caller cannot wait for', () => {
  // The gateway waits 10 s for a read and sends that as the call's budget; these rigs use 3 s
  // (given up at 2 s; the read fits its pixel tier into 1.5 s).
  const budgetMs = 3000;
  const giveUpMs = budgetMs - 1000;

  const overloaded = async (clock: VirtualClock, p: Promise<unknown>) => {
    const { error, tookMs } = await refused(clock, p);
    expect(error).toMatchObject({ code: 'HOST_OVERLOADED', details: { waitedMs: giveUpMs, retryAfterMs: 1000 } });
    expect(tookMs).toBe(giveUpMs); // a second before the gateway's own timeout
    return error as Error & { hint: string };
  };

  it('is answered HOST_OVERLOADED a second before the gateway gives up, and the retry joins the read that went on', async () => {
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups);
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.treeMs = 2600; // the tree of a starved host: longer than the caller can wait
    const err = await overloaded(clock, u.call('d1', 1, 'team-a', 'screen.read', {}, budgetMs));
    expect(err.hint).toMatch(/ask again/);
    expect(u.counts.overdue).toBe(1);
    // The retry the refusal asks for: it joins the read still going rather than starting another,
    // and is answered when that read's tree comes, 2.6 s after it began.
    const retry = await timed(clock, u.call('d1', 1, 'team-a', 'screen.read', {}, budgetMs));
    const outline = retry.value as { read: { cached: boolean; nodes: number } };
    expect(retry.tookMs).toBe(2600 - giveUpMs);
    expect(counts.trees).toBe(1);
    expect(outline.read.nodes).toBe(1);
    expect(u.counts.overdue).toBe(1);
  });

  it('serves a read that went on after its caller gave up to the next call once, though its pixel tier was cut short', async () => {
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups);
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.treeMs = 2600; // past the read's answer time too: the pixel tier is skipped
    await overloaded(clock, u.call('d1', 1, 'team-a', 'screen.read', {}, budgetMs));
    await clock.advance(2600 - giveUpMs); // the read that went on ends
    expect(u.counts.cutShort).toBe(1);
    expect(counts.trees).toBe(1);
    expect(counts.captures).toBe(0);
    delays.treeMs = 0;
    // No caller had it: the next one does, without reading again, saying what it left unread.
    const first = (await u.call('d1', 1, 'team-a', 'screen.read', {}, budgetMs)) as { read: { cached: boolean; ocr?: { unread?: number } } };
    expect(first.read.cached).toBe(true);
    expect(first.read.ocr?.unread).toBe(1);
    expect(counts.trees).toBe(1);
    // Served once: a read missing its words is not served again; the next one reads them.
    const second = (await u.call('d1', 1, 'team-a', 'screen.read', {}, budgetMs)) as { read: { cached: boolean; ocr?: { unread?: number; lines: number } } };
    expect(second.read.cached).toBe(false);
    expect(counts.trees).toBe(2);
    expect(second.read.ocr).toMatchObject({ lines: 1 });
    expect(second.read.ocr?.unread).toBeUndefined();
  });

  it('keeps to its own limit with no budget given, and a read failing after its caller gave up harms nothing', async () => {
    const { device, eyes, u, counts, delays, clock } = await understandingRig(cleanups, { giveUpMs: 600 });
    device.show(new Canvas(30));
    await settled(eyes, clock);
    delays.treeMs = 900;
    delays.treeError = new Error('Target closed');
    const { error, tookMs } = await refused(clock, u.call('d1', 1, 'team-a', 'screen.locate', { target: 'START' }));
    expect(error).toMatchObject({ code: 'HOST_OVERLOADED', details: { waitedMs: 600 } });
    expect(tookMs).toBe(600);
    // The read fails after its caller was answered: nobody is told, and nothing is thrown unhandled
    // (vitest fails the run on an unhandled rejection).
    await clock.advance(500);
    expect(counts.trees).toBe(1);
    delays.treeMs = 0;
    delays.treeError = undefined;
    const found = (await u.call('d1', 1, 'team-a', 'screen.locate', { target: 'START' })) as { how: string };
    expect(found.how).toBe('ocr');
    expect(counts.trees).toBe(2);
  });
});
