// Touch playback on the web device against a virtual clock: each DevTools call costs what the test
// says (a starved compositor acknowledged a touch in 1.5-2 s in a soak), so what is played and
// when is exact, whatever the machine running the test is doing.
import { describe, expect, it } from 'vitest';
import type { TouchFrame } from '../../workers/devices/backend.js';
import { drag, pinch, tap } from '../../workers/devices/gestures.js';
import { playTouches, type TouchClock } from '../../workers/devices/web/touch.js';

interface Sent {
  at: number;
  type: string;
  points: { x: number; y: number; id: number }[];
}

function player(costMs: number) {
  let now = 0;
  const sent: Sent[] = [];
  const clock: TouchClock = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  const cdp = {
    async send(method: string, params?: { type: string; touchPoints: { x: number; y: number; id: number }[] }) {
      if (method === 'Page.getLayoutMetrics') return { cssVisualViewport: { scale: 1, offsetX: 0, offsetY: 0 } };
      sent.push({ at: now, type: params!.type, points: params!.touchPoints.map(({ x, y, id }) => ({ x, y, id })) });
      now += costMs;
      return {};
    },
  };
  return { play: (frames: TouchFrame[]) => playTouches(cdp as never, frames, clock), sent, now: () => now };
}

const frames = drag({ x: 200, y: 600 }, { x: 200, y: 300 }, { slopPt: 8 });

describe('touch playback', () => {
  it('plays every frame of a drag on time when the device keeps up', async () => {
    const p = player(1);
    await p.play(frames);
    expect(p.sent).toHaveLength(frames.length);
    expect(p.sent.map((s) => s.at)).toEqual(frames.map((f) => f.atMs));
    expect(p.sent[0]!.type).toBe('touchStart');
    expect(p.sent.at(-1)!.type).toBe('touchEnd');
    expect(p.sent.slice(1, -1).every((s) => s.type === 'touchMove')).toBe(true);
  });

  it('leaves out moves already overdue when each touch costs 2 s, and still ends where the drag ends', async () => {
    const p = player(2000);
    await p.play(frames);
    // Press, the last move (the finger at rest where the drag ends), lift: the moves in between
    // were all due before the press was acknowledged.
    expect(p.sent.map((s) => s.type)).toEqual(['touchStart', 'touchMove', 'touchEnd']);
    expect(p.sent[0]!.points).toEqual([frames[0]!.touches[0]]);
    expect(p.sent[1]!.points).toEqual([frames.at(-2)!.touches[0]]);
    // 6 s, where playing every frame at that cost would take 2 s × 49 frames.
    expect(p.now()).toBe(6000);
  });

  it('under a moderate delay plays the moves that are still due, in order, and the rest before lifting', async () => {
    const p = player(40);
    await p.play(frames);
    const moves = p.sent.filter((s) => s.type === 'touchMove');
    expect(moves.length).toBeGreaterThan(5);
    expect(moves.length).toBeLessThan(frames.length - 2);
    const ys = moves.map((m) => m.points[0]!.y);
    // Upward all the way (the dwell's half-point jitter aside), never back.
    for (let i = 1; i < ys.length; i++) expect(ys[i]!).toBeLessThanOrEqual(ys[i - 1]! + 0.5);
    expect(moves.at(-1)!.points[0]).toEqual(frames.at(-2)!.touches[0]);
    // The finger rests at the end at least as long as the drag's dwell before it lifts.
    const firstAtEnd = moves.find((m) => Math.abs(m.points[0]!.y - frames.at(-2)!.touches[0]!.y) <= 0.5)!;
    const lift = p.sent.at(-1)!;
    expect(lift.at - firstAtEnd.at).toBeGreaterThanOrEqual(16 * 16);
  });

  it('never leaves out a press or a lift: a tap costs its two events whatever the delay', async () => {
    const p = player(2000);
    await p.play(tap({ x: 10, y: 20 }));
    expect(p.sent.map((s) => s.type)).toEqual(['touchStart', 'touchEnd']);
  });

  it('keeps both fingers of a pinch together in every frame it plays', async () => {
    const p = player(300);
    const pinchFrames = pinch({ x: 200, y: 400 }, 2);
    await p.play(pinchFrames);
    expect(p.sent[0]!.type).toBe('touchStart');
    expect(p.sent.at(-1)!.type).toBe('touchEnd');
    const moves = p.sent.filter((s) => s.type === 'touchMove');
    expect(moves.every((m) => m.points.length === 2)).toBe(true);
    expect(moves.at(-1)!.points.map(({ id, x, y }) => ({ id, x, y }))).toEqual(pinchFrames.at(-2)!.touches.map(({ id, x, y }) => ({ id, x, y })));
    expect(p.sent.length).toBeLessThan(pinchFrames.length);
  });
});
