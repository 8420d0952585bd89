// Scrolling by a distance on a simulated scroll view: each drag moves the content by what the
// finger travelled, less what the device "loses" (a starved renderer spending the first moves as
// touch slop), and stops at the content's end. The scroll is measured from the readings alone.
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../workers/acting/deadline.js';
import { delay } from '../../workers/clock.js';
import { scrollBy, scrollTo } from '../../workers/acting/scroll.js';
import type { DeviceBackend, TouchFrame } from '../../workers/devices/backend.js';
import type { Read } from '../../workers/understanding/service.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const SCREEN = { widthPt: 390, heightPt: 844 };
const ROWS = 60;
const ROW_PT = 50;

/** A list of 60 rows; `offset` is how far it has been scrolled (0 … maxOffset). */
function simulated(lossPt: number[], touchMs = 0, clock = new VirtualClock()) {
  let offset = 0;
  const maxOffset = ROWS * ROW_PT - SCREEN.heightPt;
  const drags: number[] = [];
  const device = {
    touchSlopPt: 8,
    async touch(frames: TouchFrame[]) {
      const ys = frames.flatMap((f) => f.touches.map((t) => t.y));
      const travelled = ys[0]! - ys.at(-1)!; // finger up: content down
      if (touchMs) await delay(clock, touchMs);
      const lost = lossPt[drags.length] ?? 0;
      drags.push(travelled);
      const moved = Math.sign(travelled) * Math.max(0, Math.abs(travelled) - 8 - lost); // slop, then the loss
      offset = Math.min(maxOffset, Math.max(0, offset + moved));
    },
  } as unknown as DeviceBackend;
  const read = (): Read => {
    const elements = Array.from({ length: ROWS }, (_, i) => ({
      role: 'text',
      label: `Row ${i}`,
      detail: null,
      frame: { x: 0, y: i * ROW_PT - offset, width: 390, height: ROW_PT },
    }));
    return { reading: { screen: SCREEN, elements, regionOf: elements.map(() => 'content'), regions: {} } } as unknown as Read;
  };
  return { device, read, drags, offset: () => offset, maxOffset, clock };
}

describe('scrolling by a distance', () => {
  it('lands where it was told in one drag when the device keeps up', async () => {
    const sim = simulated([]);
    const out = await scrollBy(sim.device, sim.read(), 'down', 300, async () => sim.read());
    expect(sim.drags).toHaveLength(1);
    expect(sim.offset()).toBe(300);
    expect(out).toMatchObject({ movedPt: 300, atEnd: false });
  });

  it('corrects a drag that lost 20 points, once, and reports what moved in all', async () => {
    const sim = simulated([20]);
    const out = await scrollBy(sim.device, sim.read(), 'down', 300, async () => sim.read());
    expect(sim.drags).toHaveLength(2);
    expect(sim.offset()).toBe(300);
    expect(out).toMatchObject({ movedPt: 300, atEnd: false });
    // Up as well: the correction goes the way asked, and the sum is counted that way.
    const up = await scrollBy(sim.device, sim.read(), 'up', 150, async () => sim.read());
    expect(sim.offset()).toBe(150);
    expect(up.movedPt).toBe(150);
  });

  it('leaves a landing within a few points alone, and never corrects twice', async () => {
    const close = simulated([5]);
    expect((await scrollBy(close.device, close.read(), 'down', 300, async () => close.read())).movedPt).toBe(295);
    expect(close.drags).toHaveLength(1);
    const bad = simulated([100, 100]);
    const out = await scrollBy(bad.device, bad.read(), 'down', 300, async () => bad.read());
    expect(bad.drags).toHaveLength(2);
    expect(out.movedPt).toBe(bad.offset()); // what really moved, short as it is
  });

  it("does not begin a correction that would not finish within the caller's time: it reports what moved", async () => {
    // The drag takes 300 ms; a correction would take as long again, and only 200 ms are left.
    const slow = simulated([20], 300);
    const out = await slow.clock.until(withDeadline(500, () => scrollBy(slow.device, slow.read(), 'down', 300, async () => slow.read()), slow.clock));
    expect(slow.drags).toHaveLength(1);
    expect(out).toMatchObject({ value: { movedPt: 280, atEnd: false }, tookMs: 300 });
    // With time enough, the same slow device is corrected.
    const roomy = simulated([20], 300);
    const corrected = await roomy.clock.until(
      withDeadline(5000, () => scrollBy(roomy.device, roomy.read(), 'down', 300, async () => roomy.read()), roomy.clock),
    );
    expect(roomy.drags).toHaveLength(2);
    expect(corrected).toMatchObject({ value: { movedPt: 300 }, tookMs: 600 });
  });

  it("begins no further scroll of a hunt once the caller's time is up, and no correction", async () => {
    const sim = simulated([20, 20, 20, 20], 150);
    const never = () => null; // the target never shows
    const hunt = withDeadline(400, () => scrollTo(sim.device, sim.read(), never, 'down', 10, async () => sim.read()), sim.clock);
    expect(await sim.clock.until(hunt)).toMatchObject({
      error: { code: 'COMMAND_TIMEOUT', message: expect.stringContaining('of the hunt for the target was not begun') },
    });
    // Drags of 150 ms each: two and their corrections would not fit in 400 ms; not the 10 scrolls asked for.
    const made = sim.drags.length;
    expect(made).toBe(3);
    await sim.clock.advance(400);
    expect(sim.drags).toHaveLength(made); // nothing touched the device after the answer
  });

  it('says the end when the correction forward finds the content stopped', async () => {
    const sim = simulated([]);
    await scrollBy(sim.device, sim.read(), 'down', sim.maxOffset - 100, async () => sim.read());
    const out = await scrollBy(sim.device, sim.read(), 'down', 300, async () => sim.read());
    expect(sim.offset()).toBe(sim.maxOffset);
    expect(out).toMatchObject({ movedPt: 100, atEnd: true });
  });
});

describe('scrolling to an element', () => {
  it('does not stop at an element that only peeks in at the edge: it scrolls it whole into view', async () => {
    const sim = simulated([]);
    // Row 16 lies at 800..850 pt on an 844 pt screen: 44 of its 50 pt show, and it has a tap point.
    const withTaps = (): Read => {
      const r = sim.read();
      for (const e of r.reading.elements as unknown as { frame: { y: number; height: number }; tap: unknown }[])
        e.tap = e.frame.y < SCREEN.heightPt && e.frame.y + e.frame.height > 0 ? { x: 195, y: Math.max(e.frame.y, 0) + 10 } : null;
      return r;
    };
    const find = (r: Read) => r.reading.elements.findIndex((e) => e.label === 'Row 16');
    const out = await scrollTo(sim.device, withTaps(), find, undefined, 10, async () => withTaps());
    const row = out.after.reading.elements[out.found!]!;
    expect(out.scrolls).toBeGreaterThanOrEqual(1);
    expect(row.frame.y).toBeGreaterThanOrEqual(0);
    expect(row.frame.y + row.frame.height).toBeLessThanOrEqual(SCREEN.heightPt);
    // One already whole is found where it is, with no scroll.
    const still = await scrollTo(
      sim.device,
      withTaps(),
      (r) => r.reading.elements.findIndex((e) => e.label === 'Row 14'),
      undefined,
      10,
      async () => withTaps(),
    );
    expect(still.scrolls).toBe(0);
  });
});
