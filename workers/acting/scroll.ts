// Scrolling by a distance, and scrolling until an element is in view. A scroll is a drag that stops
// where it is told (gestures.drag's dwell leaves no velocity to fling on, and its slop makes the
// content move by the distance between the ends), inside the content band so that bars are not
// dragged. How far the content really went is measured by the scroll sensor, never assumed.
import type { Point } from '../devices/backend.js';
import * as g from '../devices/gestures.js';
import type { DeviceBackend } from '../devices/backend.js';
import type { Read } from '../understanding/service.js';
import { checkDeadline, deadlineClock, timeLeft } from './deadline.js';
import { movement, STALL_PT } from './scroll-sensor.js';

export type Direction = 'up' | 'down' | 'left' | 'right';

/** Margin kept from the edges of the content band, so a drag never starts on a bar or an edge. */
const EDGE_PT = 24;

export interface Band {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** The part of the screen content scrolls in: between the top bar and the bottom bar (or keyboard). */
export function contentBand(read: Read): Band {
  const { widthPt, heightPt } = read.reading.screen;
  const r = read.reading.regions;
  const top = r.top ? r.top.y1 : 0;
  const bottom = Math.min(r.bottom ? r.bottom.y0 : heightPt, r.keyboard ? r.keyboard.y : heightPt);
  return { top, bottom, left: 0, right: widthPt };
}

/** The element lies within the content band (between the bars), or is taller than the band. */
function showsWhole(read: Read, at: number): boolean {
  const band = contentBand(read);
  const f = read.reading.elements[at]!.frame;
  if (f.height >= band.bottom - band.top) return true;
  return f.y >= band.top - 1 && f.y + f.height <= band.bottom + 1;
}

/** Drags that move the content `distance` points in `direction`, each no longer than the band allows. */
export function scrollDrags(band: Band, direction: Direction, distance: number, slopPt: number, within?: Point): ReturnType<typeof g.drag>[] {
  const vertical = direction === 'up' || direction === 'down';
  const lo = (vertical ? band.top : band.left) + EDGE_PT;
  const hi = (vertical ? band.bottom : band.right) - EDGE_PT;
  const span = Math.max(40, hi - lo - slopPt);
  const centre = (lo + hi) / 2;
  const across = within ? (vertical ? within.x : within.y) : vertical ? (band.left + band.right) / 2 : (band.top + band.bottom) / 2;
  const drags: ReturnType<typeof g.drag>[] = [];
  // The finger moves against the content: to see further down, it moves up.
  const sign = direction === 'down' || direction === 'right' ? -1 : 1;
  for (let left = distance; left > 0.5; left -= span) {
    const d = Math.min(left, span);
    const start = centre - (sign * (d + slopPt)) / 2;
    const end = start + sign * d;
    const at = (v: number): Point => (vertical ? { x: across, y: v } : { x: v, y: across });
    drags.push(g.drag(at(start), at(end), { slopPt }));
  }
  return drags;
}

export interface ScrollOutcome {
  movedPt: number | null;
  atEnd: boolean;
  after: Read;
}

/**
 * How far from the distance asked a scroll may land before it is corrected (points, or a share of
 * the distance). A drag lands within a few points when the device keeps up; one made while the
 * renderer is starved of CPU lost 20 of 300 points in CI (its first moves spent as touch slop).
 */
const LANDING_TOLERANCE = { pt: 5, share: 0.03 };

const OPPOSITE: Record<Direction, Direction> = { up: 'down', down: 'up', left: 'right', right: 'left' };

/** How far the content moved between two readings, positive the way `direction` scrolls. */
function movedBetween(a: Read, b: Read, direction: Direction): number | null {
  const m = movement(a.reading, b.reading, direction === 'up' || direction === 'down' ? 'y' : 'x');
  return m.movedPt === null ? null : direction === 'up' || direction === 'left' ? -m.movedPt : m.movedPt;
}

/**
 * Scrolls by `distance` and measures what moved. A scroll that lands measurably short or long is
 * corrected once by the difference, measured again, and reported as the sum. A correction forward
 * that moves nothing means the content ended there. `settleRead` waits for the screen to settle and
 * reads it; the caller owns both (they are the action's own wait and read).
 */
export async function scrollBy(
  device: DeviceBackend,
  before: Read,
  direction: Direction,
  distance: number,
  settleRead: () => Promise<Read>,
  within?: Point,
): Promise<ScrollOutcome> {
  const clock = deadlineClock();
  const t0 = clock.now();
  for (const drag of scrollDrags(contentBand(before), direction, distance, device.touchSlopPt, within)) await device.touch(drag);
  const after = await settleRead();
  const tookMs = clock.now() - t0;
  const movedPt = movedBetween(before, after, direction);
  if (movedPt === null || Math.abs(movedPt) < STALL_PT) return { movedPt, atEnd: movedPt !== null, after };
  const off = distance - movedPt;
  if (Math.abs(off) <= Math.max(LANDING_TOLERANCE.pt, distance * LANDING_TOLERANCE.share)) return { movedPt, atEnd: false, after };
  // A correction costs about what the scroll did (a drag and a settle). One that would not finish
  // within the caller's time is not begun: on a starved device (a soak of 20 devices on 2 cores,
  // drags of a minute) corrections doubled scrolls past the gateway's time for them. What moved is
  // then reported as measured.
  if (timeLeft() < 2 * tookMs) return { movedPt, atEnd: false, after };
  const way = off > 0 ? direction : OPPOSITE[direction];
  for (const drag of scrollDrags(contentBand(after), way, Math.abs(off), device.touchSlopPt, within)) await device.touch(drag);
  const corrected = await settleRead();
  const more = movedBetween(after, corrected, direction);
  // Unmeasured after the correction: what moved in all is not known, and is not guessed.
  if (more === null) return { movedPt: null, atEnd: false, after: corrected };
  return { movedPt: movedPt + more, atEnd: way === direction && Math.abs(more) < STALL_PT, after: corrected };
}

/** How far a viewport-sized scroll goes: most of the content band, leaving some overlap to read across. */
export function viewportStep(read: Read): number {
  const b = contentBand(read);
  return Math.max(80, Math.round((b.bottom - b.top) * 0.75));
}

export interface ScrollToOutcome extends ScrollOutcome {
  /** The element brought into view (index into `after`'s reading), or null. */
  found: number | null;
  scrolls: number;
}

/**
 * Scrolls until `find` names an element that can be touched, or the content stops twice in a row
 * (one stall can be a sticky element), or `maxScrolls` gestures were made. An element the reading
 * already places off the screen (the web tree has the whole page) is scrolled to in one measured
 * move; one that is not yet there is hunted a viewport at a time.
 */
export async function scrollTo(
  device: DeviceBackend,
  before: Read,
  find: (r: Read) => number | null,
  direction: Direction | undefined,
  maxScrolls: number,
  settleRead: () => Promise<Read>,
): Promise<ScrollToOutcome> {
  let current = before;
  let stalls = 0;
  let total = 0;
  let moved: number | null = 0;
  let centred = 0;
  for (let scrolls = 0; ; scrolls++) {
    const at = find(current);
    // Found when it shows whole: an element peeking in at the edge (10 of its 48 pt) is scrolled
    // once more, to the middle of the content, unless it is taller than the content or will not move.
    if (at !== null && current.reading.elements[at]!.tap && (showsWhole(current, at) || centred >= 1 || stalls >= 1))
      return { found: at, after: current, scrolls, movedPt: moved, atEnd: false };
    if (at !== null && current.reading.elements[at]!.tap) centred++;
    if (scrolls >= maxScrolls || stalls >= 2) return { found: null, after: current, scrolls, movedPt: moved, atEnd: stalls >= 2 };
    checkDeadline(`scroll ${scrolls + 1} of the hunt for the target`);
    let dir = direction ?? 'down';
    let distance = viewportStep(current);
    if (at !== null) {
      const band = contentBand(current);
      const f = current.reading.elements[at]!.frame;
      const off = f.y + f.height / 2 - (band.top + band.bottom) / 2;
      dir = off > 0 ? 'down' : 'up';
      distance = Math.min(Math.abs(off), 20_000);
    }
    const step = await scrollBy(device, current, dir, distance, settleRead);
    current = step.after;
    if (step.movedPt !== null) total += step.movedPt;
    moved = step.movedPt === null && moved === 0 ? null : total;
    stalls = step.atEnd ? stalls + 1 : 0;
  }
}
