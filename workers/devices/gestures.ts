// Gestures as touch paths with timing: pure geometry, the same for every platform. A backend only
// plays TouchFrames. Lessons behind the shapes:
//  - a drag must stop where it is told: a finger that stops and lifts at once leaves the scroller
//    its last velocity and it flings on. The drag ends with a dwell of tiny alternating moves, so the
//    last velocity the platform sees is near zero (field report 002: 200 pt moved, ~180 pt scrolled,
//    instead of 416 with a plain pause);
//  - a rotate moves both fingers along an arc: a straight line between start and end shrinks the
//    finger distance (to 71 % at 90°) and recognisers read a pinch into it (field report 004);
//  - a rotation speed of about 180°/s is followed cleanly on both iOS and Android.
import type { Point, TouchFrame } from './backend.js';

const STEP_MS = 16;

const lerp = (a: Point, b: Point, t: number): Point => ({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t });
const ease = (t: number): number => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);

export function tap(p: Point, holdMs = 60): TouchFrame[] {
  return [
    { atMs: 0, touches: [{ id: 0, ...p }] },
    { atMs: holdMs, touches: [] },
  ];
}

export function doubleTap(p: Point, gapMs = 120): TouchFrame[] {
  const first = tap(p);
  return [...first, ...tap(p).map((f) => ({ ...f, atMs: f.atMs + first.at(-1)!.atMs + gapMs }))];
}

export function longPress(p: Point, holdMs = 800): TouchFrame[] {
  return tap(p, holdMs);
}

/** A swipe: a fast, eased move that is meant to fling. */
export function swipe(from: Point, to: Point, durationMs = 250): TouchFrame[] {
  const steps = Math.max(2, Math.round(durationMs / STEP_MS));
  const frames: TouchFrame[] = [];
  for (let i = 0; i <= steps; i++) frames.push({ atMs: (i * durationMs) / steps, touches: [{ id: 0, ...lerp(from, to, ease(i / steps)) }] });
  frames.push({ atMs: durationMs + STEP_MS, touches: [] });
  return frames;
}

/**
 * A drag that stops where it is told: a steady move, then a dwell with tiny moves, then lift.
 * With `slopPt` the path runs that much further, so a scroll moves the content by exactly the
 * distance between `from` and `to` (the platform absorbs the first slopPt before it scrolls).
 */
export function drag(fromPoint: Point, toPoint: Point, opts: { pointsPerStep?: number; dwellSteps?: number; slopPt?: number } = {}): TouchFrame[] {
  const perStep = opts.pointsPerStep ?? 10;
  const length = Math.hypot(toPoint.x - fromPoint.x, toPoint.y - fromPoint.y) || 1;
  const extra = opts.slopPt ?? 0;
  const from = fromPoint;
  const to = { x: toPoint.x + ((toPoint.x - fromPoint.x) / length) * extra, y: toPoint.y + ((toPoint.y - fromPoint.y) / length) * extra };
  const distance = Math.hypot(to.x - from.x, to.y - from.y);
  const steps = Math.max(2, Math.ceil(distance / perStep));
  const frames: TouchFrame[] = [];
  let t = 0;
  for (let i = 0; i <= steps; i++, t += STEP_MS) frames.push({ atMs: t, touches: [{ id: 0, ...lerp(from, to, i / steps) }] });
  for (let i = 0; i < (opts.dwellSteps ?? 16); i++, t += STEP_MS) {
    const jitter = i % 2 === 0 ? 0.5 : 0;
    frames.push({ atMs: t, touches: [{ id: 0, x: to.x, y: to.y + jitter }] });
  }
  frames.push({ atMs: t, touches: [{ id: 0, ...to }] });
  frames.push({ atMs: t + STEP_MS, touches: [] });
  return frames;
}

/** Two fingers moving apart (scale > 1) or together (scale < 1) about a centre. */
export function pinch(center: Point, scale: number, opts: { radius?: number; durationMs?: number; screenMin?: number } = {}): TouchFrame[] {
  // A radius of 20 % of a 400 pt screen worked on phones; on a large screen a fixed 80 would fall
  // below recognisers' thresholds, so it grows with the screen.
  const start = opts.radius ?? Math.max(40, (opts.screenMin ?? 400) * 0.12);
  const end = start * scale;
  const durationMs = opts.durationMs ?? 400;
  const steps = Math.max(4, Math.round(durationMs / STEP_MS));
  const frames: TouchFrame[] = [];
  for (let i = 0; i <= steps; i++) {
    const r = start + (end - start) * ease(i / steps);
    frames.push({
      atMs: (i * durationMs) / steps,
      touches: [
        { id: 0, x: center.x - r, y: center.y },
        { id: 1, x: center.x + r, y: center.y },
      ],
    });
  }
  frames.push({ atMs: durationMs + STEP_MS, touches: [] });
  return frames;
}

/** Two fingers turning about a centre along an arc, at a steady ~180°/s unless told otherwise. */
export function rotate(center: Point, degrees: number, opts: { radius?: number; durationMs?: number; screenMin?: number } = {}): TouchFrame[] {
  const radius = opts.radius ?? Math.max(80, (opts.screenMin ?? 400) * 0.15);
  const durationMs = opts.durationMs ?? Math.max(200, (Math.abs(degrees) / 180) * 1000);
  const steps = Math.max(4, Math.round(durationMs / STEP_MS));
  const frames: TouchFrame[] = [];
  for (let i = 0; i <= steps; i++) {
    const a = ((degrees * Math.PI) / 180) * (i / steps);
    const dx = radius * Math.cos(a);
    const dy = radius * Math.sin(a);
    frames.push({
      atMs: (i * durationMs) / steps,
      touches: [
        { id: 0, x: center.x - dx, y: center.y - dy },
        { id: 1, x: center.x + dx, y: center.y + dy },
      ],
    });
  }
  frames.push({ atMs: durationMs + STEP_MS, touches: [] });
  return frames;
}
