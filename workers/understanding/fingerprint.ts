// A screen's structural fingerprint: what it is built of, not what it shows, and nothing that
// changes with the device's size. A fingerprint is a sorted set of tokens in families:
//
//   i:<id>     stable ids, containers included (a list's rows' template id, a toolbar's id), never a count
//   c:<name>   names in the chrome, what does not scroll (tab names, toolbar actions), the title held apart
//   n:<name>   names of the controls in the content (a form's fields, a page's buttons)
//   s:<name>   the chrome's selected item (the tab that is open)
//   r:<role>   which kinds of element the screen holds (kinds, not counts)
//   l:<role>   the kind of each list's rows
//   m:<role>   a modal layer
//   x:title-slot  (added by memory) this screen's title is data: it vetoes nothing
//
// Only names enter (names.ts): a time, a date, a price, a count, a URL never does. Ids lose their
// digit runs (row_3 is row_#). So the rows a list holds, a clock, a price and the scroll position
// leave the fingerprint as it was; what a screen is made of, and where it sits in the app's
// navigation, decide it. The title is held apart for the veto (identity.ts).
import { createHash } from 'node:crypto';
import type { ScreenSize, TreeNode } from '../devices/backend.js';
import type { Element } from './elements.js';
import type { DetectedList } from './lists.js';
import { isName, normaliseLabel } from './names.js';
import { type Regions, regionOf } from './regions.js';

export interface Fingerprint {
  /** Sorted, unique. */
  tokens: string[];
  /** The title the veto compares, when the screen has one that is a name. */
  title: string | null;
  /** First 8 hex digits of SHA-256 over the tokens: the same structure, the same hash. */
  hash: string;
}

/**
 * Whether a fingerprint is in this format. The one before it (kept in memory written before this
 * one) had shape tokens (e:, l1:, s:<region>:) that would read here as names and selections.
 */
export function isCurrentFormat(fp: Fingerprint): boolean {
  return fp.tokens.every((t) => /^[icnsrlmx]:/.test(t) && !/^(e|l\d|k):|^[cs]:(top|content|bottom|modal|keyboard):/.test(t));
}

/** Ids every screen of a platform carries (the window's own frames): they tell screens apart by nothing. */
const GENERIC_IDS = new Set([
  'content',
  'statusbarbackground',
  'navigationbarbackground',
  'action_bar_root',
  'decor_content_parent',
  'action_bar_container',
  'action_bar',
  'parentpanel',
  'toppanel',
  'root',
  'app',
  'main',
]);

/** An id as identity sees it: the package prefix gone, digit runs as #, or null when it is generic or data. */
export function stableId(id: string | null): string | null {
  if (!id) return null;
  const bare = id.replace(/^[\w.]+:id\//, '').toLowerCase();
  if (GENERIC_IDS.has(bare)) return null;
  // An id that is mostly digits or a long hex run is minted per item, not a template.
  if (/[0-9a-f]{8,}/.test(bare) || (bare.match(/\d/g) ?? []).length > bare.length / 2) return null;
  return bare.replace(/\d+/g, '#');
}

export function fingerprintOf(
  nodes: TreeNode[],
  elements: Element[],
  regions: Regions,
  lists: DetectedList[],
  title: string | null,
  screen: ScreenSize,
): Fingerprint {
  const tokens = new Set<string>();
  const inContent = contentOf(nodes, elements, regions, screen);
  const rows = new Set(lists.flatMap((l) => l.rows.map((i) => elements[i]!.node)));
  // Ids come from every node, containers included: a list's own id and its rows' ids are structure.
  for (const n of nodes) {
    if (n.system || (regions.modal && !insideModal(n.index, regions))) continue;
    const id = stableId(n.id);
    if (id) tokens.add(`i:${id}`);
  }
  const named = title && isName(title) ? normaliseLabel(title) : null;
  for (const e of elements) {
    if (regions.modal && regionOf(e, regions) !== 'modal') continue; // behind a modal: the modal is the screen
    if (e.underLayer || e.source === 'ocr' || nodes[e.node]!.system) continue; // a page underneath; text from pixels (a canvas's score); the status bar
    if (regionOf(e, regions) === 'keyboard') continue; // a keyboard being up is not another screen
    const content = inContent(e.node);
    tokens.add(`r:${e.role}${e.states.readonly ? ':readonly' : ''}`);
    const label = normaliseLabel(e.label);
    if (!isName(label) || label === named || rows.has(e.node)) continue;
    const name = label.toLowerCase();
    if (!content) {
      tokens.add(`c:${name}`);
      if (e.states.selected) tokens.add(`s:${name}`);
    } else if (e.interactive || e.role === 'group') tokens.add(`n:${name}`);
  }
  const candidates = elements.filter((e) => !nodes[e.node]!.system && !rows.has(e.node) && normaliseLabel(e.label) !== named);
  for (const s of oddOneOut(candidates, regions, screen)) tokens.add(`s:${s}`);

  for (const l of lists) tokens.add(`l:${elements[l.rows[0]!]!.role}`);
  if (regions.modal) tokens.add(`m:${regions.modal.role}`);
  const sorted = [...tokens].sort();
  return { tokens: sorted, title: named, hash: createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 8) };
}

/**
 * Which tree nodes are the screen's scrolling content. Where a scrolling container holds the
 * content (an Android list, a web app's scrolling page), content is what sits in it and everything
 * else (bars, an input bar, a floating button) is chrome. Where nothing scrolls but the document
 * itself (a web page), the bars found from the geometry are the chrome and the rest is content.
 */
function contentOf(nodes: TreeNode[], elements: Element[], regions: Regions, screen: ScreenSize): (node: number) => boolean {
  const scrolled = elements.filter((e) => regions.scrolls[e.node] && e.visible);
  const covered = scrolled.reduce((s, e) => s + e.visible!.width * e.visible!.height, 0);
  const scrollerHoldsContent = scrolled.length >= 2 && covered >= 0.15 * screen.widthPt * screen.heightPt;
  if (scrollerHoldsContent) return (node) => regions.scrolls[node] === true;
  const byNode = new Map(elements.map((e) => [e.node, e]));
  return (node) => {
    const e = byNode.get(node);
    const frame = e?.frame ?? nodes[node]!.frame;
    const mid = frame.y + frame.height / 2;
    if (regions.top && mid <= regions.top.y1) return false;
    if (regions.bottom && mid >= regions.bottom.y0) return false;
    return true;
  };
}

function insideModal(node: number, regions: Regions): boolean {
  for (let p: number | null = node; p !== null; p = regions.parents[p] ?? null) if (p === regions.modal!.node) return true;
  return false;
}

/**
 * The open tab of a navigation bar or rail that marks it by leaving it out of the tappable items
 * (Compose draws the open tab's label as plain text): among the named items of one row along the
 * bottom or top edge, or one column of narrow items along a side, all controls but exactly one
 * plain text, that text is the open tab. A row needs three or more items at the bottom and four at
 * the top (a top bar's title beside two actions is no tab bar); a column needs four.
 */
/** Items laid side by side (a row) or one under another (a column), not stacked over each other. */
function spread(g: Element[]): boolean {
  const overlaps = (a: number, aw: number, b: number, bw: number) => Math.min(a + aw, b + bw) - Math.max(a, b) > 0.5 * Math.min(aw, bw);
  for (let i = 0; i < g.length; i++) {
    for (let j = i + 1; j < g.length; j++) {
      const a = g[i]!.frame;
      const b = g[j]!.frame;
      if (overlaps(a.x, a.width, b.x, b.width) && overlaps(a.y, a.height, b.y, b.height)) return false;
    }
  }
  return true;
}

function oddOneOut(elements: Element[], regions: Regions, screen: ScreenSize): string[] {
  const W = screen.widthPt;
  const H = screen.heightPt;
  const items = elements.filter((e) => e.visible && isName(e.label) && (e.interactive || e.role === 'text'));
  const cx = (e: Element) => e.frame.x + e.frame.width / 2;
  const cy = (e: Element) => e.frame.y + e.frame.height / 2;
  const groups: Element[][] = [];
  // Items of one bar share a band: each overlaps the extent of those before it (a tab's label sits
  // lower than its neighbours' icon buttons, so centres alone would split the bar).
  const along = (lo: (e: Element) => number, hi: (e: Element) => number, pick: (e: Element) => boolean, min: number) => {
    const sorted = items.filter(pick).sort((a, b) => lo(a) - lo(b));
    let run: Element[] = [];
    let end = -Infinity;
    for (const e of sorted) {
      if (run.length && lo(e) > end) {
        if (run.length >= min) groups.push(run);
        run = [];
        end = -Infinity;
      }
      run.push(e);
      end = Math.max(end, hi(e));
    }
    if (run.length >= min) groups.push(run);
  };
  const top = (e: Element) => e.frame.y;
  const foot = (e: Element) => e.frame.y + e.frame.height;
  const left = (e: Element) => e.frame.x;
  const right = (e: Element) => e.frame.x + e.frame.width;
  const bottomBand = regions.bottom;
  along(top, foot, (e) => cy(e) >= 0.8 * H || (bottomBand !== null && cy(e) >= bottomBand.y0 && cy(e) <= bottomBand.y1), 3);
  along(top, foot, (e) => cy(e) <= 0.25 * H, 4);
  along(left, right, (e) => (cx(e) <= 0.2 * W || cx(e) >= 0.8 * W) && e.frame.width <= 0.3 * W, 4);
  const out: string[] = [];
  for (const g of groups) {
    if (!spread(g)) continue;
    const plain = g.filter((e) => !e.interactive && e.role === 'text');
    if (plain.length === 1 && g.length - plain.length >= 2) out.push(normaliseLabel(plain[0]!.label).toLowerCase());
  }
  return out;
}
