// The screen's primary list (and a secondary one), so "the third row" is #3 whatever the rows say.
// Candidates are elements of one role under one container, stacked vertically; a candidate is a
// list when its rows have consistent heights (table cells) or a regular rhythm (feeds whose cells
// vary). Score = rows × consistency × role bonus × width share; no weights learned or tuned.
import type { TreeNode } from '../devices/backend.js';
import type { Element } from './elements.js';
import { bottom, right } from './geometry.js';

export interface DetectedList {
  /** 1 = the primary list (#N), 2 = the secondary one (#N@2). */
  rank: 1 | 2;
  /** Its rows, top to bottom: elements[rows[k]] is row #k+1. */
  rows: number[];
  visible: number;
  score: number;
  basis: 'height' | 'rhythm';
}

const MIN_ROWS = 3;
/** Below this consistency a group of same-role elements is not a list. */
const MIN_CONSISTENCY = 0.6;
const ROLE_BONUS: Record<string, number> = { cell: 1.5, button: 1.2, link: 1.2 };
const ROW_ROLES = new Set(['cell', 'button', 'link']);

export function findLists(elements: Element[], nodes: TreeNode[], screenWidth: number): DetectedList[] {
  const container = containersOf(elements, nodes);
  const groups = new Map<string, number[]>();
  elements.forEach((e, i) => {
    if (e.underLayer) return; // rows of a page underneath are not this screen's list
    const key = `${container[i]}|${e.role}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const scored: Omit<DetectedList, 'rank'>[] = [];
  for (const members of groups.values()) {
    if (members.length < MIN_ROWS) continue;
    // Rows are things to open: captions or fields stacked down a page are not a list.
    if (!ROW_ROLES.has(elements[members[0]!]!.role)) continue;
    const rows = [...members].sort((a, b) => elements[a]!.frame.y - elements[b]!.frame.y);
    if (!stacked(rows.map((i) => elements[i]!))) continue;
    const frames = rows.map((i) => elements[i]!.frame);
    const heights = 1 - cv(frames.map((f) => f.height));
    const steps = frames.slice(1).map((f, k) => f.y - frames[k]!.y);
    const rhythm = 1 - cv(steps);
    // Consistent heights make a table only when the rows follow one another closely; spread-out
    // controls of one size (a form's fields) are a form.
    const gaps = frames.slice(1).map((f, k) => f.y - bottom(frames[k]!));
    const packed = median(gaps) <= Math.max(8, 0.5 * median(frames.map((f) => f.height)));
    const consistency = Math.max(packed ? heights : 0, rhythm);
    if (consistency < MIN_CONSISTENCY) continue;
    const width = Math.min(1, frames.reduce((s, f) => s + f.width, 0) / frames.length / screenWidth);
    const role = elements[rows[0]!]!.role;
    const score = rows.length * consistency * (ROLE_BONUS[role] ?? 1) * width;
    scored.push({ rows, visible: rows.filter((i) => elements[i]!.visible).length, score, basis: packed && heights >= rhythm ? 'height' : 'rhythm' });
  }
  scored.sort((a, b) => b.score - a.score || elements[a.rows[0]!]!.frame.y - elements[b.rows[0]!]!.frame.y);
  return scored.slice(0, 2).map((l, k) => ({ ...l, rank: (k + 1) as 1 | 2 }));
}

/**
 * For each element, the node its row hangs from: climb while the ancestor holds no other element
 * (a row's button inside its own list item), then take the parent. Rows of one list share it.
 */
function containersOf(elements: Element[], nodes: TreeNode[]): number[] {
  const count = new Array<number>(nodes.length).fill(0);
  for (const e of elements) for (let p: number | null = e.node; p !== null; p = nodes[p]!.parent) count[p]!++;
  return elements.map((e) => {
    let a = e.node;
    for (let p = nodes[a]!.parent; p !== null && count[p] === 1; p = nodes[p]!.parent) a = p;
    return nodes[a]!.parent ?? -1;
  });
}

/** One above the other, overlapping horizontally: a column, not a row of tabs. */
function stacked(es: Element[]): boolean {
  for (let k = 1; k < es.length; k++) {
    const a = es[k - 1]!.frame;
    const b = es[k]!.frame;
    if (b.y < bottom(a) - 0.5 * Math.min(a.height, b.height)) return false;
    if (Math.min(right(a), right(b)) - Math.max(a.x, b.x) < 0.5 * Math.min(a.width, b.width)) return false;
  }
  return true;
}

/** Coefficient of variation, clamped to [0, 1]. */
function cv(xs: number[]): number {
  if (xs.length < 2) return 1;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (mean <= 0) return 1;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
  return Math.min(1, sd / mean);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1] ?? 0;
}
