// Where the content went: neither iOS nor Android publishes a scroll offset, so it is inferred from
// what is read anyway. Labels present before and after a gesture are compared by vertical position,
// content only (fixed bars never move, and on a short page they are most of what is shared), and
// the median of their shifts is the distance moved. A single zero can be a sticky element inside the
// page; the caller treats the end as two stalls in a row, not one.
import type { Element } from '../understanding/elements.js';
import type { ScreenReading } from '../understanding/screen.js';

export interface Movement {
  /** Points the content moved towards its end (positive: scrolled down); null when nothing is shared. */
  movedPt: number | null;
  /** Labels the estimate rests on. */
  shared: number;
}

/** Below this the content is taken as not moved (rounding of frames, a caret). */
export const STALL_PT = 2;

export function movement(before: ScreenReading, after: ScreenReading, axis: 'y' | 'x' = 'y'): Movement {
  const a = contentByKey(before);
  const b = contentByKey(after);
  const shifts: number[] = [];
  for (const [key, e] of a) {
    const f = b.get(key);
    if (!f) continue;
    shifts.push(axis === 'y' ? e.frame.y - f.frame.y : e.frame.x - f.frame.x);
  }
  if (!shifts.length) return { movedPt: null, shared: 0 };
  shifts.sort((x, y) => x - y);
  const mid = shifts.length >> 1;
  const median = shifts.length % 2 ? shifts[mid]! : (shifts[mid - 1]! + shifts[mid]!) / 2;
  return { movedPt: Math.round(median * 10) / 10, shared: shifts.length };
}

/** Content elements with words, keyed by role and label; a key that occurs twice says nothing. */
function contentByKey(r: ScreenReading): Map<string, Element> {
  const out = new Map<string, Element>();
  const twice = new Set<string>();
  r.elements.forEach((e, i) => {
    if (r.regionOf[i] !== 'content' || !e.label) return;
    const key = `${e.role} ${e.label} ${e.detail ?? ''}`;
    if (out.has(key)) twice.add(key);
    out.set(key, e);
  });
  for (const k of twice) out.delete(k);
  return out;
}
