// What may keep changing without counting as change. Two kinds, by rule, and nothing else:
//  - a status clock: a small region (≤ 2 % of the screen) entirely inside the top band (the top 8 %
//    of the screen, where status bars and their clocks live);
//  - a text caret: a thin region (≤ 2 grid pixels wide, ≤ 6 tall: about 16 × 50 pt) that has been
//    blinking: at least two toggles in the last two seconds, 300–800 ms apart.
// A spinner is neither: it is reported as moving. A radio dot is caret-sized but does not blink, so it
// counts (the history check is what keeps a real change from being ignored).
import type { Box, FrameAnalysis } from './analysis.js';

export type IgnorableKind = 'caret' | 'clock';

export const TOP_BAND = 0.08;
const CLOCK_MAX_AREA = 0.02;

export function ignorable(region: Box, newest: FrameAnalysis, recent: readonly FrameAnalysis[]): IgnorableKind | null {
  const topRows = Math.ceil(newest.gridH * TOP_BAND);
  if (region.y + region.height <= topRows && region.width * region.height <= CLOCK_MAX_AREA * newest.gridW * newest.gridH) return 'clock';
  if (region.width <= 2 && region.height <= 6 && blinking(region, newest, recent)) return 'caret';
  return null;
}

/** Whether the region's brightness toggled back and forth at a caret's pace recently. */
function blinking(region: Box, newest: FrameAnalysis, recent: readonly FrameAnalysis[]): boolean {
  const window = recent.filter((f) => newest.at - f.at <= 2000 && f.gridW === newest.gridW && f.gridH === newest.gridH);
  const level = (f: FrameAnalysis) => {
    let sum = 0;
    for (let y = region.y; y < region.y + region.height; y++) for (let x = region.x; x < region.x + region.width; x++) sum += f.gray[y * f.gridW + x]!;
    return sum / (region.width * region.height);
  };
  const toggles: number[] = [];
  let last = window.length ? level(window[0]!) : 0;
  for (const f of window.slice(1)) {
    const l = level(f);
    if (Math.abs(l - last) > 10) toggles.push(f.at);
    last = l;
  }
  if (toggles.length < 2) return false;
  for (let i = 1; i < toggles.length; i++) {
    const gap = toggles[i]! - toggles[i - 1]!;
    if (gap < 300 || gap > 800) return false;
  }
  return true;
}
