// A screen's structural fingerprint: what it is built of, not what it shows. Tokens come from roles,
// quantised sizes, the region, how many siblings a control has (bucketed), the primary list's row
// shape (never its row count), and names: the bars' labels and the content's control labels, but
// only labels that are names (names.ts). The title is held apart, for the veto. So new rows in an
// inbox, a clock ticking in the header or a price changing leave the fingerprint as it was.
import { createHash } from 'node:crypto';
import type { Element } from './elements.js';
import type { DetectedList } from './lists.js';
import { isName, normaliseLabel } from './names.js';
import { regionOf, type Regions } from './regions.js';

export interface Fingerprint {
  /** Sorted, unique. */
  tokens: string[];
  /** The title the veto compares, when the screen has one that is a name. */
  title: string | null;
  /** First 8 hex digits of SHA-256 over the tokens: the same structure, the same hash. */
  hash: string;
}

/** Token kinds that are names weigh this much more than shape tokens in the similarity. */
export const NAME_WEIGHT = 3;

export function fingerprintOf(elements: Element[], regions: Regions, lists: DetectedList[], title: string | null, screenWidth: number): Fingerprint {
  const rows = new Set(lists.flatMap((l) => l.rows));
  const tokens = new Set<string>();
  const siblings = new Map<string, number>();
  elements.forEach((e, i) => {
    const region = regionOf(e, regions);
    if (regions.modal && region !== 'modal') return; // behind a modal: the modal is the screen
    if (e.underLayer) return; // a page underneath (kept in the DOM by the app's router)
    if (rows.has(i)) return;
    // Text read from pixels changes with what a canvas draws (a score, a timer): not structure.
    if (e.source === 'ocr') return;
    tokens.add(`e:${region}:${e.role}${e.states.readonly ? ':readonly' : ''}:${widthBucket(e.frame.width, screenWidth)}x${heightBucket(e.frame.height)}`);
    const key = `${region}:${e.role}`;
    siblings.set(key, (siblings.get(key) ?? 0) + 1);
    const label = normaliseLabel(e.label);
    // The title is compared by the veto, not counted here: two screens alike but for their title
    // should score alike, and the veto tell them apart.
    if (!isName(label) || label === title) return;
    if (region === 'top' || region === 'bottom' || region === 'modal') tokens.add(`c:${region}:${label.toLowerCase()}`);
    else if (e.interactive) tokens.add(`n:${e.role}:${label.toLowerCase()}`);
  });
  for (const [key, n] of siblings) tokens.add(`s:${key}:${countBucket(n)}`);
  for (const l of lists) {
    const first = elements[l.rows[0]!]!;
    tokens.add(`l${l.rank}:${regionOf(first, regions)}:${first.role}:${heightBucket(median(l.rows.map((i) => elements[i]!.frame.height)))}`);
  }
  if (regions.modal) tokens.add(`m:${regions.modal.role}`);
  if (regions.keyboard) tokens.add('k:keyboard');
  const named = title && isName(title) ? normaliseLabel(title) : null;
  const sorted = [...tokens].sort();
  return { tokens: sorted, title: named, hash: createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 8) };
}

/** Quarters of the screen's width: a full-width row, a half-width button, an icon. */
function widthBucket(w: number, screenWidth: number): number {
  return Math.min(4, Math.round((w / screenWidth) * 4));
}

/** Doubling steps from 16 pt: text, a control, a row, a card, a block. */
function heightBucket(h: number): number {
  return Math.max(0, Math.min(5, Math.floor(Math.log2(Math.max(h, 1) / 16)) + 1));
}

function countBucket(n: number): string {
  return n <= 2 ? String(n) : n <= 4 ? '3-4' : n <= 8 ? '5-8' : '9+';
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] ?? 0;
}

/**
 * Weighted Jaccard similarity of two fingerprints: shared weight over combined weight, names
 * counting NAME_WEIGHT times a shape token. The bottom bar's names are the exception: a tab bar is
 * chrome every top-level screen shares, so it tells screens apart by little, and an app update that
 * renames one tab must not make every screen with the bar a stranger (a replay then stops at the
 * first tab screen instead of at the step that touches the renamed tab).
 */
export function similarity(a: Fingerprint, b: Fingerprint): number {
  const weight = (t: string) => (t.startsWith('c:bottom:') ? 1 : t.startsWith('c:') || t.startsWith('n:') ? NAME_WEIGHT : 1);
  const as = new Set(a.tokens);
  const bs = new Set(b.tokens);
  let shared = 0;
  let total = 0;
  for (const t of a.tokens) {
    if (bs.has(t)) shared += weight(t);
    total += weight(t);
  }
  for (const t of b.tokens) if (!as.has(t)) total += weight(t);
  return total === 0 ? 0 : shared / total;
}
