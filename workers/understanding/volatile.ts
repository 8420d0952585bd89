// Words that change by themselves. The eyes ignore a status clock ticking (and a caret blinking), and
// a small text's change may move the grid's gray levels by less than counts as change: either way
// the screen is still the one memory knows, and the last read still holds. But the words a read
// holds are from when it was taken: served again, a clock's would be stale. So an element inside a
// region that changed at all since the read's words were taken is marked volatile, and its words
// are not served.
import { type Box, components, type FrameAnalysis, toPoints } from '../perception/analysis.js';
import { significantChange } from '../perception/settle.js';
import { intersect } from './geometry.js';
import type { ScreenReading } from './screen.js';

/**
 * The reading, with the elements that lie in regions changed by themselves between `wordsFrom` (the
 * frame the reading's words are from) and `now` marked `volatile` and their words left out; the
 * reading itself when nothing changed there (or the frame the words are from is no longer kept).
 */
export function withVolatile(
  reading: ScreenReading,
  wordsFrom: FrameAnalysis | undefined,
  now: FrameAnalysis | undefined,
  recent: readonly FrameAnalysis[],
): ScreenReading {
  if (!now || !wordsFrom || wordsFrom.seq === now.seq) return reading;
  if (wordsFrom.gridW !== now.gridW || wordsFrom.gridH !== now.gridH) return reading;
  const regions = [...significantChange(wordsFrom, now, recent).ignored.map((i) => i.box), ...faintChanges(wordsFrom, now)].map((b) => toPoints(b, now));
  if (!regions.length) return reading;
  let marked = 0;
  const elements = reading.elements.map((e) => {
    // A control's words are its name; what blinks or ticks inside it (a caret in a field) is not them.
    const box = e.visible ?? e.frame;
    if (e.interactive || !regions.some((r) => intersect(box, r))) return e;
    marked++;
    return { ...e, label: '', detail: null, value: null, flags: [...e.flags.filter((f) => f !== 'volatile'), 'volatile' as const] };
  });
  return marked ? { ...reading, elements } : reading;
}

/** Grid pixels that moved by a gray level or two: less than counts as change, but not nothing. */
const FAINT = 2;

function faintChanges(a: FrameAnalysis, b: FrameAnalysis): Box[] {
  const mask = new Uint8Array(a.gray.length);
  let any = false;
  for (let i = 0; i < a.gray.length; i++) {
    if (Math.abs(a.gray[i]! - b.gray[i]!) >= FAINT) {
      mask[i] = 1;
      any = true;
    }
  }
  return any ? components(mask, a.gridW, a.gridH) : [];
}
