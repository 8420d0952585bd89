// Rectangles in points. Containment, not overlap ratios, decides whether two boxes describe one
// thing: a word's box inside a row's box scores 1.0 here and 0.05 by IoU.
import type { Point, Rect } from '../devices/backend.js';

export const area = (r: Rect): number => Math.max(0, r.width) * Math.max(0, r.height);
export const bottom = (r: Rect): number => r.y + r.height;
export const right = (r: Rect): number => r.x + r.width;
export const centre = (r: Rect): Point => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });

export function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(right(a), right(b)) - x;
  const h = Math.min(bottom(a), bottom(b)) - y;
  return w > 0 && h > 0 ? { x, y, width: w, height: h } : null;
}

/** The share of `inner` that lies inside `outer` (1 = wholly inside). */
export function containment(inner: Rect, outer: Rect): number {
  const a = area(inner);
  if (a === 0) return 0;
  const i = intersect(inner, outer);
  return i ? area(i) / a : 0;
}

/** `inner` lies inside `outer`, allowing `slack` points of overhang on each side (rounding, borders). */
export function inside(inner: Rect, outer: Rect, slack = 1): boolean {
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack && right(inner) <= right(outer) + slack && bottom(inner) <= bottom(outer) + slack;
}

/**
 * What is left of `r` once a horizontal band [top, bottom) is taken away: the larger of the parts
 * above and below (a row half under a bar keeps the half that shows).
 */
export function withoutBand(r: Rect, top: number, bot: number): Rect | null {
  if (bot <= r.y || top >= bottom(r)) return r;
  const above = top > r.y ? { ...r, height: top - r.y } : null;
  const below = bot < bottom(r) ? { ...r, y: bot, height: bottom(r) - bot } : null;
  if (!above) return below;
  if (!below) return above;
  return area(above) >= area(below) ? above : below;
}

export const roundPoint = (p: Point): Point => ({ x: Math.round(p.x), y: Math.round(p.y) });
