// Which screencast frames are a capture's own paint (workers/devices/web/capture-paints.ts): by
// their size, and by when they were painted, with the times given rather than waited for.
import { describe, expect, it } from 'vitest';
import { delay } from '../../workers/clock.js';
import { CapturePaints } from '../../workers/devices/web/capture-paints.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const screen = { width: 393, height: 852 };
const at = (ms: number) => ({ deviceWidth: 393, deviceHeight: 852, timestamp: ms / 1000 });

describe('capture paints', () => {
  it('leaves out a frame at the capture size at any time, and a frame of the screen size only when painted inside a capture', async () => {
    const clock = new VirtualClock();
    const p = new CapturePaints(screen, clock);
    const now = clock.wall();
    expect(p.isCapturePaint({ deviceWidth: 786, deviceHeight: 1704, timestamp: now / 1000 })).toBe(true);
    expect(p.isCapturePaint(at(now - 1000))).toBe(false);
    let inside = 0;
    const capture = p.during(async () => {
      inside = clock.wall();
      expect(p.capturing).toBe(true);
      expect(p.isCapturePaint(at(inside))).toBe(true); // while it runs
      await delay(clock, 30);
    });
    await clock.until(capture);
    expect(p.capturing).toBe(false);
    expect(p.isCapturePaint(at(inside + 10))).toBe(true); // arriving after, painted inside
    expect(p.isCapturePaint(at(inside + 30 + 200))).toBe(false); // painted after
    expect(p.isCapturePaint(at(now - 1000))).toBe(false); // painted before
    expect(p.dropped).toBe(3);
  });

  it('owes one fresh frame for what it left out, once', () => {
    const p = new CapturePaints(screen);
    expect(p.takeOwed()).toBe(0);
    p.isCapturePaint({ deviceWidth: 1179, deviceHeight: 2556 });
    p.isCapturePaint({ deviceWidth: 1179, deviceHeight: 2556 });
    expect(p.takeOwed()).toBe(2);
    expect(p.takeOwed()).toBe(0);
    expect(p.dropped).toBe(2);
  });

  it('keeps a window open while overlapping captures run, and closes it with the last', async () => {
    const p = new CapturePaints(screen);
    let release!: () => void;
    const first = p.during(() => new Promise<void>((r) => (release = r)));
    const second = p.during(async () => undefined);
    await second;
    expect(p.capturing).toBe(true);
    release();
    await first;
    expect(p.capturing).toBe(false);
  });

  it('a capture that fails still closes its window', async () => {
    const p = new CapturePaints(screen);
    await expect(
      p.during(async () => {
        throw new Error('no frame');
      }),
    ).rejects.toThrow('no frame');
    expect(p.capturing).toBe(false);
  });

  it('without a paint time, judges by when the frame arrived', () => {
    const p = new CapturePaints(screen);
    expect(p.isCapturePaint({ deviceWidth: 393, deviceHeight: 852 })).toBe(false);
  });
});
