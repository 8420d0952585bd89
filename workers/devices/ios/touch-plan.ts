// Turns the boundary's touch paths into what AXe and idb can play. Both offer one finger only, and
// no touch-move primitive: a tap, a touch held in place (a long press) and a straight swipe with a
// duration are all there is. So each stroke (one finger from down to lift) becomes one of those, a
// stroke that bends is refused rather than straightened, and two fingers at once are refused.
// Strokes keep their start times, so a double tap is two taps a gap apart (each tool call costs a
// process start, which stretches short gaps; see the README).
import { DeviceError, type Point, type TouchFrame } from '../backend.js';

export type StrokeAction =
  | { kind: 'tap'; at: Point; startMs: number }
  | { kind: 'press'; at: Point; holdMs: number; startMs: number }
  | { kind: 'swipe'; from: Point; to: Point; durationMs: number; deltaPt: number; startMs: number };

/** A finger that moves less than this stays a tap (UIKit's tap tolerance is larger still). */
const TAP_SLOP_PT = 3;
/** A finger held this long in place is a press: UILongPressGestureRecognizer's default is 0.5 s. */
const PRESS_MS = 300;
/** How far a point may stray from the line between a stroke's ends and still be played as a line. */
const LINE_TOLERANCE_PT = 3;

interface Stroke {
  id: number;
  points: (Point & { t: number })[];
  endMs: number;
}

const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

function strokesOf(frames: TouchFrame[]): Stroke[] {
  const strokes: Stroke[] = [];
  let current: Stroke | undefined;
  const end = (at: number) => {
    if (current) strokes.push({ ...current, endMs: at });
    current = undefined;
  };
  for (const f of frames) {
    if (f.touches.length > 1) {
      throw new DeviceError(
        'DEVICE_FAILED',
        `this gesture puts ${f.touches.length} fingers down at once; AXe and idb play one finger only`,
        'pinch and rotate need a multi-touch driver (XCUITest), which this backend does not have; taps, long presses, swipes and straight drags work',
      );
    }
    const t = f.touches[0];
    if (!t) {
      end(f.atMs);
      continue;
    }
    if (current && current.id !== t.id) end(f.atMs);
    current ??= { id: t.id, points: [], endMs: f.atMs };
    current.points.push({ x: t.x, y: t.y, t: f.atMs });
  }
  if (current) end(current.points.at(-1)!.t);
  return strokes;
}

/** Whether every point lies near the segment from the first to the last, moving forward along it. */
function straight(points: Point[]): boolean {
  const a = points[0]!;
  const b = points.at(-1)!;
  const length = dist(a, b);
  const ux = (b.x - a.x) / length;
  const uy = (b.y - a.y) / length;
  let furthest = -Infinity;
  for (const p of points) {
    const along = (p.x - a.x) * ux + (p.y - a.y) * uy;
    const across = Math.abs((p.x - a.x) * uy - (p.y - a.y) * ux);
    if (across > LINE_TOLERANCE_PT || along < -LINE_TOLERANCE_PT || along > length + LINE_TOLERANCE_PT) return false;
    if (along < furthest - LINE_TOLERANCE_PT) return false;
    furthest = Math.max(furthest, along);
  }
  return true;
}

export function planTouches(frames: TouchFrame[]): StrokeAction[] {
  const strokes = strokesOf(frames);
  const t0 = strokes[0]?.points[0]?.t ?? 0;
  return strokes.map((s): StrokeAction => {
    const first = s.points[0]!;
    const startMs = first.t - t0;
    const durationMs = Math.max(0, s.endMs - first.t);
    const last = s.points.at(-1)!;
    if (s.points.every((p) => dist(p, first) <= TAP_SLOP_PT)) {
      return durationMs >= PRESS_MS
        ? { kind: 'press', at: { x: first.x, y: first.y }, holdMs: durationMs, startMs }
        : { kind: 'tap', at: { x: first.x, y: first.y }, startMs };
    }
    if (!straight(s.points)) {
      throw new DeviceError(
        'DEVICE_FAILED',
        'this touch path bends; AXe and idb can only swipe in a straight line between two points',
        'split it into straight drags, or use a platform with a touch-move primitive (web, Android)',
      );
    }
    // Every move of more than a point is one step of the path (a closing dwell jitters by less); the tools space theirs evenly.
    let moves = 0;
    for (let i = 1; i < s.points.length; i++) if (dist(s.points[i]!, s.points[i - 1]!) > 1) moves++;
    return {
      kind: 'swipe',
      from: { x: first.x, y: first.y },
      to: { x: last.x, y: last.y },
      // The whole time the finger was down, the closing dwell included: the tools lift at the end
      // point, and a slower steady move leaves the scroller less velocity to fling on with.
      durationMs: Math.max(50, durationMs),
      deltaPt: Math.max(1, dist(first, last) / Math.max(1, moves)),
      startMs,
    };
  });
}
