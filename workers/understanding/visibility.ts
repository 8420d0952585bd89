// Where each element can be touched. A tap point is the centre of the part a user can see, not of
// the frame: a row half under the tab bar is tapped in the half that shows, or the tap lands on a
// tab. Elements the screen cuts off or something covers are flagged, and never given a point inside
// what covers them.
import type { ScreenSize } from '../devices/backend.js';
import type { Element } from './elements.js';
import { bottom, centre, inside, intersect, withoutBand } from './geometry.js';
import { regionOf, type Regions } from './regions.js';

/** Less than this many points of an element showing counts as none (a hairline is not a target). */
const MIN_VISIBLE_PT = 2;

/** First pass: what the screen's edges leave of each element. */
export function clipToScreen(elements: Element[], screen: ScreenSize): void {
  const rect = { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt };
  for (const e of elements) {
    if (e.flags.includes('covered')) continue; // the platform saw something drawn over it
    const v = intersect(e.frame, rect);
    e.visible = v && v.width >= MIN_VISIBLE_PT && v.height >= MIN_VISIBLE_PT ? v : null;
    if (!e.visible) e.flags.push('offscreen');
    else if (e.frame.width - e.visible.width > 1 || e.frame.height - e.visible.height > 1) e.flags.push('partly-offscreen');
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
}

const round = (p: { x: number; y: number }) => ({ x: Math.round(p.x), y: Math.round(p.y) });

function underBars(e: Element, r: Regions, screen: ScreenSize): boolean {
  let v = intersect(e.frame, { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt });
  if (!v || (!r.top && !r.bottom)) return false;
  if (r.top) v = v && withoutBand(v, -Infinity, r.top.y1);
  if (r.bottom) v = v && withoutBand(v, r.bottom.y0, Infinity);
  return !v || v.height < MIN_VISIBLE_PT;
}
