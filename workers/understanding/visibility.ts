// Where each element can be touched. A tap point is the centre of the part a user can see, not of
// the frame: a row half under the tab bar is tapped in the half that shows, or the tap lands on a
// tab. Elements the screen cuts off or something covers are flagged, and never given a point inside
// what covers them.
import type { ScreenSize } from '../devices/backend.js';
import type { Element } from './elements.js';
import type { Rect } from '../devices/backend.js';
import { area, bottom, centre, containment, inside, intersect, withoutBand } from './geometry.js';
import { regionOf, type Regions } from './regions.js';

/** Less than this many points of an element showing counts as none (a hairline is not a target). */
const MIN_VISIBLE_PT = 2;

/**
 * The screen's edge hides part of what the element shows. A full-width row with a point of negative
 * margin each side (common in UI kits) is not: the cut must pass 2 pt and 5% of the element.
 */
function cutOff(whole: number, shown: number): boolean {
  const cut = whole - shown;
  return cut > 2 && cut > whole * 0.05;
}

/** First pass: what the screen's edges leave of each element. */
export function clipToScreen(elements: Element[], screen: ScreenSize): void {
  const rect = { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt };
  for (const e of elements) {
    if (e.flags.includes('covered')) continue; // the platform saw something drawn over it
    // A container's clip first (an inner list's rows scrolled out of its box), then the screen's edges.
    const v = e.clip === null ? null : intersect(e.clip ?? e.frame, rect);
    e.visible = v && v.width >= MIN_VISIBLE_PT && v.height >= MIN_VISIBLE_PT ? v : null;
    if (!e.visible) e.flags.push('offscreen');
    else if (cutOff(e.frame.width, e.visible.width) || cutOff(e.frame.height, e.visible.height)) e.flags.push('partly-offscreen');
  }
}

/** Second pass, once the regions are known: what the bars, the keyboard and a modal layer cover. */
export function clipToRegions(elements: Element[], regions: Regions, screen: ScreenSize): void {
  for (const e of elements) {
    // Painted over, but only where a bar lies: content scrolled under the bar, this screen's own
    // (a row below the tab bar is still row #9), not a page underneath another.
    if (e.underLayer && underBars(e, regions, screen)) e.underLayer = false;
    if (!e.visible) continue;
    const region = regionOf(e, regions);
    if (regions.modal && region !== 'modal') {
      // Behind a dialog: a tap there lands on the backdrop.
      e.visible = null;
      e.flags.push('covered');
      continue;
    }
    if (region === 'content') {
      let v: typeof e.visible | null = e.visible;
      if (regions.top) v = v && withoutBand(v, -Infinity, regions.top.y1);
      if (regions.bottom) v = v && withoutBand(v, regions.bottom.y0, Infinity);
      if (regions.keyboard) v = v && withoutBand(v, regions.keyboard.y, Infinity);
      if (!v || v.height < MIN_VISIBLE_PT) {
        // All of it lies in a bar's band: covered, unless the platform saw it painted over the bar.
        if (e.drawnOnTop) continue;
        e.visible = null;
        e.flags.push('covered');
        continue;
      }
      if (v.height < e.visible.height - 1 && !inside(e.visible, v)) e.flags.push('partly-covered');
      e.visible = v;
    }
  }
  for (const e of elements) {
    e.tap = e.visible ? round(centre(e.visible)) : null;
    if (e.visible && bottom(e.visible) <= e.visible.y) e.tap = null;
  }
  offControlsDrawnOver(elements);
}

/**
 * A tap goes to the control on top. Where a control drawn later (after it in the tree, paint order
 * on every platform but for Android's elevation and custom drawing orders) lies over an element's
 * tap point without containing the element (a floating button over a list row, a link bar laid over
 * the last item, a button inside a card), the tap moves to the largest part of the element that no
 * such control covers: a point of its own whichever is on top. With no such part left the centre
 * stays, flagged: the tree cannot say which of the two a tap there reaches.
 */
function offControlsDrawnOver(elements: Element[]): void {
  const controls = elements.filter((c) => c.interactive && c.visible);
  for (const e of elements) {
    // Words a control lies on are tapped on it, as a person tapping them would: only a control's own point moves.
    if (!e.interactive || !e.tap || !e.visible) continue;
    const over = controls.filter((c) => c.node > e.node && containment(e.frame, c.frame) < 0.9 && intersect(c.visible!, e.visible!));
    if (!over.some((c) => contains(c.visible!, e.tap!))) continue;
    const free = freeParts(e.visible, over);
    const best = free.sort((a, b) => area(b) - area(a))[0];
    if (best) e.tap = round(centre(best));
    if (!e.flags.includes('partly-covered')) e.flags.push('partly-covered');
  }
}

/** What of `r` the boxes leave uncovered, as rectangles big enough to tap (each box cuts every piece into up to four). */
function freeParts(r: Rect, boxes: Element[]): Rect[] {
  let pieces = [r];
  for (const c of boxes) {
    const b = c.visible!;
    pieces = pieces.flatMap((p) => {
      const i = intersect(p, b);
      if (!i) return [p];
      return [
        { x: p.x, y: p.y, width: p.width, height: i.y - p.y },
        { x: p.x, y: bottom(i), width: p.width, height: bottom(p) - bottom(i) },
        { x: p.x, y: i.y, width: i.x - p.x, height: i.height },
        { x: i.x + i.width, y: i.y, width: p.x + p.width - (i.x + i.width), height: i.height },
      ].filter((q) => q.width >= MIN_VISIBLE_PT && q.height >= MIN_VISIBLE_PT);
    });
  }
  return pieces;
}

const contains = (r: Rect, p: { x: number; y: number }) => p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;

const round = (p: { x: number; y: number }) => ({ x: Math.round(p.x), y: Math.round(p.y) });

function underBars(e: Element, r: Regions, screen: ScreenSize): boolean {
  let v = intersect(e.frame, { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt });
  if (!v || (!r.top && !r.bottom)) return false;
  if (r.top) v = v && withoutBand(v, -Infinity, r.top.y1);
  if (r.bottom) v = v && withoutBand(v, r.bottom.y0, Infinity);
  return !v || v.height < MIN_VISIBLE_PT;
}
