// Maestro's element selectors (the `select` of a step), matched the way Maestro's Orchestra and
// Filters match them (mobile-dev-inc/maestro, Orchestra.buildFilter and Filters.kt): text and id
// are regular expressions over the whole string, ignoring case, `.` matching newlines, with the
// pattern-as-written as a literal fallback; several matches are not ambiguous, the order picks one.
// The tree here is flat: "child of" and "contains child" are read from the frames (one element
// drawn inside another), not from the platform's parent links.
import type { components } from '../../openapi/generated/types.js';
import type { Rect } from '../devices/backend.js';
import type { Element } from './elements.js';

export type Selector = components['schemas']['Selector'];

/** What a selector is matched against: the elements of one reading and which of them show. */
export interface Pool {
  elements: Element[];
  shown: (i: number) => boolean;
}

/**
 * Maestro's `toRegexSafe(IGNORE_CASE, DOT_MATCHES_ALL, MULTILINE)` used with Kotlin's `matches`
 * (the whole input): a pattern that does not compile is escaped and matched as plain text.
 * Sticky at 0 plus "nothing after" is a whole-input match whatever `m` does to `^` and `$`.
 */
export function maestroRegex(pattern: string): RegExp {
  try {
    // Java's inline flags ((?i), (?s), (?m)) are already on; JavaScript has no such syntax
    return new RegExp(`(?:${pattern.replace(/\(\?[ims]+\)/g, '')})(?![\\s\\S])`, 'imsy');
  } catch {
    return new RegExp(`(?:${pattern.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')})(?![\\s\\S])`, 'imsy');
  }
}

/** Filters.textMatches: the regex over the whole text, or the text equal to the pattern; newlines also read as spaces. */
export function textMatches(re: RegExp, pattern: string, text: string | null): boolean {
  if (text === null || text === '') return false;
  const flat = text.replace(/\n/g, ' ');
  return whole(re, text) || pattern === text || whole(re, flat) || pattern === flat;
}

function whole(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  return re.test(text);
}

/** Every element the selector matches, in the order Maestro would take them (the chosen one first). */
export function selectAll(sel: Selector, pool: Pool): number[] {
  const ordered = filtered(sel, pool);
  if (sel.index !== undefined) {
    const byPlace = [...ordered].sort((a, b) => place(pool.elements[a]!.frame, pool.elements[b]!.frame));
    const one = byPlace[sel.index];
    return one === undefined ? [] : [one];
  }
  // Filters.clickableFirst: a stable sort, so elements that answer taps come first in their order
  return [...ordered.filter((i) => pool.elements[i]!.interactive), ...ordered.filter((i) => !pool.elements[i]!.interactive)];
}

/** The filters of one selector, intersected in Maestro's order: the first filter's order is kept. */
function filtered(sel: Selector, pool: Pool): number[] {
  const all = pool.elements.map((_, i) => i).filter(pool.shown);
  const lists: number[][] = [];
  if (sel.text !== undefined) lists.push(deepest(byText(sel.text, all, pool), pool));
  if (sel.id !== undefined) lists.push(deepest(byId(sel.id, all, pool), pool));
  for (const [key, keep] of RELATIVE) {
    const other = sel[key];
    if (other) lists.push(relative(all, selectAll(other, pool), pool, keep));
  }
  if (sel.childOf) {
    const parents = selectAll(sel.childOf, pool)
      .slice(0, 1)
      .map((i) => pool.elements[i]!.frame);
    lists.push(all.filter((i) => parents.some((p) => within(pool.elements[i]!.frame, p) && !same(pool.elements[i]!.frame, p))));
  }
  if (sel.containsChild) {
    const children = selectAll(sel.containsChild, pool).slice(0, 1);
    lists.push(all.filter((i) => children.some((c) => c !== i && within(pool.elements[c]!.frame, pool.elements[i]!.frame))));
  }
  for (const [key, holds] of STATES) {
    const want = sel[key];
    if (want !== undefined) lists.push(all.filter((i) => holds(pool.elements[i]!) === want));
  }
  if (!lists.length) return all;
  const [first, ...rest] = lists as [number[], ...number[][]];
  const sets = rest.map((l) => new Set(l));
  return [...new Set(first)].filter((i) => sets.every((s) => s.has(i)));
}

function byText(pattern: string, all: number[], pool: Pool): number[] {
  const re = maestroRegex(pattern);
  return all.filter((i) => {
    const e = pool.elements[i]!;
    return textMatches(re, pattern, e.label) || textMatches(re, pattern, e.value) || textMatches(re, pattern, e.detail);
  });
}

function byId(pattern: string, all: number[], pool: Pool): number[] {
  const re = maestroRegex(pattern);
  return all.filter((i) => {
    const id = pool.elements[i]!.id;
    return id !== null && (whole(re, id) || whole(re, id.slice(id.lastIndexOf('/') + 1)));
  });
}

/** Filters.deepestMatchingElement: a match that holds another match gives way to it. */
function deepest(matches: number[], pool: Pool): number[] {
  const frame = (i: number) => pool.elements[i]!.frame;
  return matches.filter((i) => !matches.some((j) => j !== i && within(frame(j), frame(i)) && !same(frame(j), frame(i))));
}

type Keep = (it: Rect, other: Rect) => boolean;
const RELATIVE: [keyof Pick<Selector, 'below' | 'above' | 'leftOf' | 'rightOf'>, Keep][] = [
  ['below', (it, o) => it.y > o.y],
  ['above', (it, o) => it.y < o.y],
  ['leftOf', (it, o) => it.x < o.x],
  ['rightOf', (it, o) => it.x > o.x],
];

/** Filters.relativeTo: elements placed so from any of the others, nearest centre first. */
function relative(all: number[], others: number[], pool: Pool, keep: Keep): number[] {
  const pairs: [number, number][] = [];
  for (const i of all) {
    const it = pool.elements[i]!.frame;
    for (const o of others) if (o !== i && keep(it, pool.elements[o]!.frame)) pairs.push([i, distance(it, pool.elements[o]!.frame)]);
  }
  return [...new Set(pairs.sort((a, b) => a[1] - b[1]).map(([i]) => i))];
}

const STATES: [keyof Pick<Selector, 'enabled' | 'checked' | 'focused' | 'selected'>, (e: Element) => boolean][] = [
  ['enabled', (e) => !e.states.disabled],
  ['checked', (e) => e.states.checked === true],
  ['focused', (e) => e.states.focused === true],
  ['selected', (e) => e.states.selected === true],
];

/** Filters.INDEX_COMPARATOR: top edge, then left edge. */
function place(a: Rect, b: Rect): number {
  return a.y - b.y || a.x - b.x;
}

function distance(a: Rect, b: Rect): number {
  return Math.hypot(a.x + a.width / 2 - (b.x + b.width / 2), a.y + a.height / 2 - (b.y + b.height / 2));
}

function within(inner: Rect, outer: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

function same(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

/** `text ~ "Sign.*", below (text ~ "Email"), enabled` for messages. */
export function describeSelector(sel: Selector): string {
  const parts: string[] = [];
  if (sel.text !== undefined) parts.push(`text ~ ${JSON.stringify(sel.text)}`);
  if (sel.id !== undefined) parts.push(`id ~ ${JSON.stringify(sel.id)}`);
  for (const key of ['below', 'above', 'leftOf', 'rightOf', 'childOf', 'containsChild'] as const) {
    const other = sel[key];
    if (other) parts.push(`${key} (${describeSelector(other)})`);
  }
  for (const [key] of STATES) if (sel[key] !== undefined) parts.push(sel[key] ? key : `not ${key}`);
  if (sel.index !== undefined) parts.push(`index ${sel.index}`);
  return parts.join(', ');
}
