// Where the fixed bars are, found from this screen's own geometry rather than from fixed fractions:
// a bar is a short row at an edge set apart by a gap that is an outlier against the screen's own row
// spacing. A bar the platform declares (a navigation bar, a tab bar) is taken as declared. A modal
// layer (a dialog, an alert, a sheet) covers the rest; a keyboard is where the platform says.
import type { Rect, ScreenSize, TreeNode } from '../devices/backend.js';
import type { Element } from './elements.js';
import { area, bottom, inside, intersect } from './geometry.js';

export type RegionName = 'top' | 'content' | 'bottom' | 'keyboard' | 'modal';

export interface Band {
  y0: number;
  y1: number;
}

/** How a bar was found: the tree declares it, it stays while content scrolls, or a gap sets it apart. */
export type Evidence = 'declared' | 'fixed' | 'gap';

export interface Regions {
  top: Band | null;
  bottom: Band | null;
  keyboard: Rect | null;
  /** The layer covering the rest of the screen, and what the platform called it. */
  modal: { frame: Rect; role: string; label: string; node: number } | null;
  /** How each bar was found, for the evidence (declared by the tree, or from the gaps). */
  evidence: { top: Evidence | null; bottom: Evidence | null };
  /** The tree nodes of declared bars: what is in them is decided by the tree, not by position. */
  barNodes: { top: number | null; bottom: number | null };
  /** Per tree node, its parent (for membership of declared bars). */
  parents: (number | null)[];
  /** Per tree node, whether it lies inside a scrolling container (a list, a scroll view). */
  scrolls: boolean[];
}

/** A bar is at most this share of the screen's height: a sanity cap, not where bars are looked for. */
const MAX_BAR_SHARE = 0.22;
/** A gap is an outlier when it is at least this many times the screen's median row gap... */
const GAP_RATIO = 2;
/** ...and at least this many points (rows set tight together have tiny median gaps). */
const MIN_GAP_PT = 6;
/** A bottom bar found from gaps must end this close to the bottom edge (a home indicator's inset). */
const EDGE_PT = 40;
/** The status bar's height at most (iPhones with a Dynamic Island: 59 pt; Android: 24 to 48 dp). */
const STATUS_PT = 60;
/** A bar is never cut by the screen's edge: a row running more than this past it is content in flow. */
const CUT_PT = 2;
const TOP_ROLES = new Set(['navbar', 'toolbar', 'header']);
const BOTTOM_ROLES = new Set(['tabbar', 'toolbar', 'footer']);
const MODAL_ROLES = new Set(['dialog', 'alert']);

export interface Row {
  y0: number;
  y1: number;
  members: Element[];
}

/** Visible elements grouped into rows: an element joins a row its vertical span mostly overlaps. */
export function rowsOf(elements: Element[]): Row[] {
  const sorted = elements
    .filter((e) => e.visible)
    .sort((a, b) => a.visible!.y + a.visible!.height / 2 - (b.visible!.y + b.visible!.height / 2) || a.visible!.x - b.visible!.x);
  const rows: Row[] = [];
  for (const e of sorted) {
    const v = e.visible!;
    const row = rows[rows.length - 1];
    const overlap = row ? Math.min(row.y1, bottom(v)) - Math.max(row.y0, v.y) : 0;
    if (row && overlap >= 0.5 * Math.min(row.y1 - row.y0, v.height)) {
      row.y0 = Math.min(row.y0, v.y);
      row.y1 = Math.max(row.y1, bottom(v));
      row.members.push(e);
    } else rows.push({ y0: v.y, y1: bottom(v), members: [e] });
  }
  return rows;
}

export function findRegions(nodes: TreeNode[], elements: Element[], screen: ScreenSize): Regions {
  const H = screen.heightPt;
  const W = screen.widthPt;
  const screenRect = { x: 0, y: 0, width: W, height: H };
  const modal = findModal(nodes, screenRect);
  const keyboardNode = nodes.find((n) => n.role === 'keyboard' && intersect(n.frame, screenRect));
  const keyboard = keyboardNode ? intersect(keyboardNode.frame, screenRect) : null;
  const wide = (r: Rect) => r.width >= 0.8 * W && r.height <= MAX_BAR_SHARE * H;
  const atTop = (n: TreeNode) => wide(n.frame) && n.frame.y + n.frame.height / 2 < H / 2 && n.frame.y < H * MAX_BAR_SHARE;
  // Declared: a navigation bar or header; or, where the platform names no role, a short full-width
  // group at the top holding the screen's heading (the shape every navigation bar has).
  // A bar is at the edge: the app shows nothing beyond it (a page's <footer> with more page below it
  // is content that scrolls, whatever its role). What the system draws and the keyboard do not count.
  const parents = nodes.map((x) => x.parent);
  const shown = elements.filter(
    (e) => e.visible && !nodes[e.node]?.system && !(keyboard && inside(e.frame, keyboard)) && !(modal && inside(e.frame, modal.frame)),
  );
  // Above a top bar only the status bar may show: words within the top STATUS_PT (a clock, a battery),
  // which an iOS tree lists among the app's own nodes.
  const nothingAbove = (n: TreeNode) =>
    !shown.some((e) => bottom(e.frame) <= n.frame.y + 1 && !descends(e.node, n.index, parents) && (e.interactive || bottom(e.frame) > STATUS_PT));
  const nothingBelow = (n: TreeNode) => !shown.some((e) => e.frame.y >= bottom(n.frame) - 1 && !descends(e.node, n.index, parents));
  const declaredTop =
    nodes.find((n) => TOP_ROLES.has(n.role) && atTop(n) && nothingAbove(n)) ??
    nodes.find((n) => (n.role === 'group' || n.role === 'other') && atTop(n) && holdsHeading(n.index, nodes) && nothingAbove(n));
  const declaredBottom = nodes.find(
    (n) =>
      BOTTOM_ROLES.has(n.role) &&
      wide(n.frame) &&
      n.frame.y + n.frame.height / 2 > H / 2 &&
      bottom(n.frame) > H * (1 - MAX_BAR_SHARE) &&
      (!keyboard || n.frame.y < keyboard.y) &&
      nothingBelow(n),
  );

  // Rows of what shows beneath any modal layer and above any keyboard.
  const base = elements.filter((e) => e.visible && !e.underLayer && !(modal && inside(e.frame, modal.frame)) && !(keyboard && inside(e.frame, keyboard)));
  // Scrolling containers nest (a page's body inside a scrolling app shell): what scrolls is what
  // sits in the deepest one that holds content; chrome sits outside it.
  const depth = scrollDepths(nodes);
  const contentDepth = Math.max(0, ...base.map((e) => depth[e.node]!));
  const scrolls = depth.map((d) => contentDepth > 0 && d >= contentDepth);
  const rows = rowsOf(base);
  const gaps = rows.slice(1).map((r, i) => r.y0 - rows[i]!.y1);
  const typical = median(gaps.filter((g) => g >= 0));
  const outlier = (g: number) => g >= Math.max(MIN_GAP_PT, GAP_RATIO * typical);

  let top: Band | null = declaredTop ? { y0: Math.max(0, declaredTop.frame.y), y1: bottom(declaredTop.frame) } : null;
  let topBy: Regions['evidence']['top'] = top ? 'declared' : null;
  // Chrome stays while content scrolls: where part of the screen scrolls, the rows at an edge
  // that hold nothing scrolling are a bar.
  const fixedRows = (order: number[]): number[] => {
    if (!base.some((e) => scrolls[e.node])) return [];
    const out: number[] = [];
    for (const i of order) {
      if (rows[i]!.members.some((m) => scrolls[m.node])) break;
      out.push(i);
    }
    return out;
  };
  if (!top) {
    const fixed = fixedRows(rows.map((_, i) => i));
    const end = fixed.at(-1);
    if (end !== undefined && end < rows.length - 1 && rows[end]!.y1 - rows[0]!.y0 <= MAX_BAR_SHARE * H) {
      top = { y0: 0, y1: rows[end]!.y1 };
      topBy = 'fixed';
    }
  }
  // Content the screen's edge cuts (a row half scrolled past the top, a button running on below the
  // bottom) is a page in flow: no bar is found from the gaps at that edge.
  const cutAtTop = rows.length > 0 && rows[0]!.members.some((m) => m.frame.y < -CUT_PT);
  if (!top && rows.length >= 3 && !cutAtTop) {
    // The first one or two rows, when the gap after them stands out.
    for (let i = 0; i < Math.min(2, rows.length - 2); i++) {
      if (rows[i]!.y1 - rows[0]!.y0 > MAX_BAR_SHARE * H) break;
      if (outlier(gaps[i]!)) {
        top = { y0: 0, y1: rows[i]!.y1 };
        topBy = 'gap';
        break;
      }
    }
  }
  const limit = keyboard ? keyboard.y : H;
  let bot: Band | null = declaredBottom ? { y0: declaredBottom.frame.y, y1: Math.min(limit, bottom(declaredBottom.frame)) } : null;
  let botBy: Regions['evidence']['bottom'] = bot ? 'declared' : null;
  if (!bot) {
    const fixed = fixedRows(rows.map((_, i) => rows.length - 1 - i));
    const start = fixed.at(-1);
    const last = rows[rows.length - 1];
    if (
      start !== undefined &&
      start > 0 &&
      last &&
      limit - last.y1 <= EDGE_PT &&
      last.y1 - rows[start]!.y0 <= MAX_BAR_SHARE * H &&
      !(top && rows[start]!.y0 < top.y1)
    ) {
      bot = { y0: rows[start]!.y0, y1: limit };
      botBy = 'fixed';
    }
  }
  const cutAtBottom = rows.length > 0 && rows[rows.length - 1]!.members.some((m) => bottom(m.frame) > limit + CUT_PT);
  if (!bot && rows.length >= 3 && !cutAtBottom) {
    const last = rows.length - 1;
    for (let k = 0; k < Math.min(2, rows.length - 2); k++) {
      const i = last - k; // the bar would be rows i..last, after gap i-1
      if (rows[last]!.y1 - rows[i]!.y0 > MAX_BAR_SHARE * H) break;
      // A bottom bar sits at the bottom edge: nothing but its own margin below it.
      if (limit - rows[last]!.y1 > EDGE_PT) break;
      if (top && rows[i]!.y0 < top.y1) break;
      if (outlier(gaps[i - 1]!)) {
        bot = { y0: rows[i]!.y0, y1: limit };
        botBy = 'gap';
        break;
      }
    }
  }
  return {
    top,
    bottom: bot,
    keyboard,
    modal,
    evidence: { top: topBy, bottom: botBy },
    barNodes: { top: declaredTop?.index ?? null, bottom: declaredBottom?.index ?? null },
    parents: nodes.map((n) => n.parent),
    scrolls,
  };
}

/** The topmost dialog or alert that shows, or a named layer the platform drew over everything. */
function findModal(nodes: TreeNode[], screen: Rect): Regions['modal'] {
  let found: Regions['modal'] = null;
  for (const n of nodes) {
    if (!MODAL_ROLES.has(n.role)) continue;
    const shown = intersect(n.frame, screen);
    if (!shown || area(shown) < 0.05 * area(screen)) continue;
    found = { frame: shown, role: n.role, label: n.label, node: n.index }; // later in the tree paints on top
  }
  return found;
}

export function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Which region an element belongs to (its centre decides). */
export function regionOf(e: Element, r: Regions): RegionName {
  const f = e.visible ?? e.frame;
  const cy = f.y + f.height / 2;
  // In the modal layer: what the tree puts in it, or what is drawn after it within its frame. What
  // lies inside its frame but comes before it in the tree is underneath (a list behind a sheet that
  // rises over it): covered, not the sheet's.
  if (r.modal && inside(e.frame, r.modal.frame, 2) && (e.node > r.modal.node || descends(e.node, r.modal.node, r.parents))) return 'modal';
  // The keyboard holds what lies within it: a row whose centre the keyboard covers is content, cut
  // off by it and tapped in the part that shows (by its centre it was a key, and tapped on one).
  if (r.keyboard && inside(e.frame, r.keyboard, 2)) return 'keyboard';
  // A declared bar holds what the tree puts in it; a bar found from the gaps holds what lies (almost)
  // wholly inside it. Either way a row scrolled under a tab bar is content, covered, not a tab.
  const inBar = (which: 'top' | 'bottom', band: Band) => {
    const node = r.barNodes[which];
    if (node !== null && descends(e.node, node, r.parents)) return true;
    if (node === null) return withinBand(e.frame, band);
    // Outside a declared bar, between it and the screen's edge (a status bar's clock): chrome too,
    // unless it scrolls. What overlaps the bar itself is content passing under it.
    const edge = which === 'top' ? { y0: 0, y1: band.y0 } : { y0: band.y1, y1: Infinity };
    return withinBand(e.frame, edge) && !r.scrolls[e.node] && !e.flags.includes('offscreen');
  };
  if (r.top && cy < r.top.y1 && inBar('top', r.top)) return 'top';
  if (r.bottom && cy >= r.bottom.y0 && inBar('bottom', r.bottom)) return 'bottom';
  return 'content';
}

function withinBand(f: Rect, b: Band): boolean {
  if (f.height <= 0) return false;
  const shown = Math.min(bottom(f), b.y1) - Math.max(f.y, b.y0);
  return shown / f.height >= 0.9;
}

function descends(node: number, ancestor: number, parents: (number | null)[]): boolean {
  for (let p: number | null = node; p !== null; p = parents[p] ?? null) if (p === ancestor) return true;
  return false;
}

function holdsHeading(index: number, nodes: TreeNode[]): boolean {
  const parents = nodes.map((x) => x.parent);
  return nodes.some((n) => n.role === 'heading' && descends(n.index, index, parents));
}

/** How many scrolling containers each node sits inside (as the platform says what scrolls). */
function scrollDepths(nodes: TreeNode[]): number[] {
  const out = new Array<number>(nodes.length).fill(0);
  for (const n of nodes) out[n.index] = n.parent === null ? 0 : out[n.parent]! + (nodes[n.parent]!.scrollable ? 1 : 0);
  return out;
}
