// A screen's vocabulary as the farm stores it: what a user can see on it and where to touch it, so
// that a client can answer "what is here and where do I tap" for a screen any host has read.
import type { components } from '../../openapi/generated/types.js';
import type { ScreenReading } from '../understanding/screen.js';
import { clip } from '../text/clip.js';

type Word = components['schemas']['MemoryWord'];

/** Entries kept per screen (the table's check says the same): controls first when there are more. */
export const MAX_WORDS = 200;
/** A label longer than this is prose, not a name to tap by; cut so a screen's entry stays small. */
const MAX_LABEL = 300;

/** The elements with a tap point, in outline order; controls before text when the cap bites. */
export function vocabularyOf(reading: ScreenReading): Word[] {
  const shown = reading.elements.filter((e) => e.tap !== null);
  const kept = shown.length > MAX_WORDS ? [...shown.filter((e) => e.interactive), ...shown.filter((e) => !e.interactive)].slice(0, MAX_WORDS) : shown;
  const keep = new Set(kept);
  return shown
    .filter((e) => keep.has(e))
    .map((e) => ({ role: clip(e.role, 64), label: clip(e.label, MAX_LABEL), ...(e.id ? { id: clip(e.id, 300) } : {}), tap: { x: e.tap!.x, y: e.tap!.y } }));
}
