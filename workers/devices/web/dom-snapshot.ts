// What one DOMSnapshot tells about the elements the accessibility tree names: each one's box (from
// the renderer's layout), whether it can be seen, its stable id, whether it is a scrolling container
// (content under fixed bars), and whether something painted later covers a point of it (a page
// pushed over the previous one, which frameworks keep in the DOM, off to the side or underneath).
import type { Point, Rect } from '../backend.js';

export interface DomInfo {
  rect: Rect;
  visible: boolean;
  stableId: string | null;
  /** Scrolls its content (overflow-y auto or scroll): a list or a page body under fixed bars. */
  scroller: boolean;
  /** Answers a click by itself: a click, mouse-down or mouse-up listener of its own, or a link (Chromium's isClickable). */
  clickable: boolean;
  /**
   * Transparent by its own opacity only, inside a visible parent: a control a kit hides so that its
   * parent's drawing shows in its place (Dojo's dijit checkbox, file inputs over a styled button).
   * The parent's backend id; the control still takes the taps.
   */
  drawnByParent?: number;
  /**
   * The part of `rect` its ancestors let show, where one clips it (overflow hidden, auto or scroll:
   * an inner list's rows scrolled out of its box, a wheel picker's rows above and below its window);
   * null when none of it shows. Absent when nothing clips it.
   */
  clip?: Rect | null;
}

export interface Snapshot {
  strings: string[];
  documents: {
    nodes: {
      parentIndex: number[];
      backendNodeId: number[];
      attributes: number[][];
      nodeName?: number[];
      contentDocumentIndex?: { index: number[]; value: number[] };
      isClickable?: { index: number[] };
    };
    layout: { nodeIndex: number[]; bounds: number[][]; styles: number[][]; paintOrders?: number[] };
    scrollOffsetX?: number;
    scrollOffsetY?: number;
  }[];
}

/** The computed styles asked for, in this order (styles[k] indexes them). */
export const SNAPSHOT_STYLES = ['display', 'visibility', 'opacity', 'overflow-y', 'background-color', 'overflow-x', 'position', 'pointer-events'];
const [DISPLAY, VISIBILITY, OPACITY, OVERFLOW_Y, BACKGROUND, OVERFLOW_X, POSITION, POINTER_EVENTS] = [0, 1, 2, 3, 4, 5, 6, 7];
/** Overflow values that cut a box's content to its box (`visible` alone lets it show). */
const CLIPPING = new Set(['hidden', 'clip', 'auto', 'scroll']);
/** A clip: the rectangle a box's content is cut to, or undefined where nothing cuts it. */
type Clip = Rect | undefined;

interface Painted {
  rect: Rect;
  paint: number;
  node: number;
}

interface DocIndex {
  parent: number[];
  /** Boxes drawn with an opaque background, by paint order: what can hide what was painted before. */
  opaque: Painted[];
  /**
   * Positioned boxes that take pointer events though they draw nothing that hides (a toast's
   * transparent mask over the page, a clear overlay): a tap on what lies under them lands on them.
   */
  catchers: Painted[];
  /** Controls by tag or role (labels, links, buttons): a tap caught by something inside one still reaches it. */
  answers: Set<number>;
  /** Each label's `for`, and each element's id: a label laid over its own field passes the tap to it. */
  labelFor: Map<number, string>;
  ids: Map<number, string>;
  paintOf: Map<number, number>;
}

export class DomIndex {
  readonly info = new Map<number, DomInfo>();
  private readonly where = new Map<number, { doc: number; node: number }>();
  private readonly docs: DocIndex[] = [];
  private readonly names = new Map<number, string>();

  constructor(snap: Snapshot) {
    const s = snap.strings;
    // Where each child document sits in its parent: from the iframe element that holds it.
    const offsets: Point[] = snap.documents.map(() => ({ x: 0, y: 0 }));
    snap.documents.forEach((doc, di) => {
      const cdi = doc.nodes.contentDocumentIndex;
      if (!cdi) return;
      cdi.index.forEach((nodeIndex, k) => {
        const child = cdi.value[k]!;
        const li = doc.layout.nodeIndex.indexOf(nodeIndex);
        const b = li >= 0 ? doc.layout.bounds[li]! : [0, 0];
        const childDoc = snap.documents[child];
        offsets[child] = { x: offsets[di]!.x + b[0]! - (childDoc?.scrollOffsetX ?? 0), y: offsets[di]!.y + b[1]! - (childDoc?.scrollOffsetY ?? 0) };
      });
    });
    snap.documents.forEach((doc, di) => {
      const layoutOf = new Map<number, number>();
      doc.layout.nodeIndex.forEach((nodeIndex, li) => {
        layoutOf.set(nodeIndex, li);
      });
      const style = (i: number, k: number): string | undefined => {
        const li = layoutOf.get(i);
        return li === undefined ? undefined : s[doc.layout.styles[li]?.[k] ?? -1];
      };
      // visibility inherits in computed style and display:none leaves no box, but opacity does not
      // inherit: an element inside a transparent container computes opacity 1, so walk up.
      const transparentMemo = new Map<number, boolean>();
      const transparent = (i: number): boolean => {
        if (i < 0) return false;
        let t = transparentMemo.get(i);
        if (t === undefined) {
          t = style(i, OPACITY) === '0' || transparent(doc.nodes.parentIndex[i] ?? -1);
          transparentMemo.set(i, t);
        }
        return t;
      };
      const hidden = (i: number): boolean =>
        style(i, DISPLAY) === 'none' || style(i, VISIBILITY) === 'hidden' || style(i, VISIBILITY) === 'collapse' || transparent(i);
      const clickable = new Set(doc.nodes.isClickable?.index ?? []);
      const clips = clipsOf(
        doc,
        (i, k) => style(i, k),
        (i) => s[doc.nodes.nodeName?.[i] ?? -1],
        offsets[di]!,
      );
      const answers = new Set<number>();
      const index: DocIndex = { parent: doc.nodes.parentIndex, opaque: [], catchers: [], answers, labelFor: new Map(), ids: new Map(), paintOf: new Map() };
      this.docs.push(index);
      doc.nodes.backendNodeId.forEach((backendId, i) => {
        this.where.set(backendId, { doc: di, node: i });
        const name = s[doc.nodes.nodeName?.[i] ?? -1];
        if (name !== undefined) this.names.set(backendId, name);
        const li = layoutOf.get(i);
        if (li === undefined) {
          this.info.set(backendId, { rect: { x: 0, y: 0, width: 0, height: 0 }, visible: false, stableId: null, scroller: false, clickable: false });
          return;
        }
        const [x, y, w, h] = doc.layout.bounds[li]!;
        const rect = { x: x! + offsets[di]!.x, y: y! + offsets[di]!.y, width: w!, height: h! };
        const attrs = doc.nodes.attributes[i] ?? [];
        let id: string | null = null;
        let testId: string | null = null;
        for (let k = 0; k + 1 < attrs.length; k += 2) {
          const key = s[attrs[k]!];
          if (key === 'id') id = s[attrs[k + 1]!] ?? null;
          if (key === 'data-testid') testId = s[attrs[k + 1]!] ?? null;
          if (key === 'for' && name === 'LABEL') index.labelFor.set(i, s[attrs[k + 1]!] ?? '');
        }
        if (id) index.ids.set(i, id);
        const visible = !hidden(i);
        const overflow = style(i, OVERFLOW_Y);
        const parent = doc.nodes.parentIndex[i] ?? -1;
        const byParent =
          !visible && parent >= 0 && style(i, OPACITY) === '0' && !hidden(parent) && style(i, DISPLAY) !== 'none' && style(i, VISIBILITY) === 'visible';
        this.info.set(backendId, {
          rect,
          visible,
          stableId: testId ?? id,
          scroller: visible && (overflow === 'auto' || overflow === 'scroll') && parent !== -1,
          clickable: clickable.has(i),
          ...(byParent ? { drawnByParent: doc.nodes.backendNodeId[parent]! } : {}),
          ...clipped(rect, clips[i]),
        });
        const paint = doc.layout.paintOrders?.[li];
        if (paint === undefined) return;
        index.paintOf.set(i, paint);
        if (!visible || !(w! > 0 && h! > 0)) return;
        if (opaque(style(i, BACKGROUND))) index.opaque.push({ rect, paint, node: i });
        else if (CATCHING_POSITIONS.has(style(i, POSITION) ?? '') && style(i, POINTER_EVENTS) !== 'none') index.catchers.push({ rect, paint, node: i });
      });
      index.opaque.sort((a, b) => a.paint - b.paint);
      // By what they are, not by a listener: a page root or an app's root container listens for
      // every click (delegation, React's root) and would excuse a mask over the whole page.
      doc.nodes.parentIndex.forEach((_, i) => {
        const name = s[doc.nodes.nodeName?.[i] ?? -1] ?? '';
        const attrs = doc.nodes.attributes[i] ?? [];
        let role = '';
        for (let k = 0; k + 1 < attrs.length; k += 2) if (s[attrs[k]!] === 'role') role = s[attrs[k + 1]!] ?? '';
        if (ANSWERING_TAGS.has(name) || ANSWERING_ROLES.has(role)) answers.add(i);
      });
    });
  }

  /** The node's name as the DOM has it (an element's tag in capitals, `#text`), when the snapshot holds the node. */
  nodeName(backendId: number): string | undefined {
    return this.names.get(backendId);
  }

  /**
   * Whether something painted after the element, with an opaque background, covers `p` (page
   * coordinates). What the element contains does not count: its own children are part of it.
   */
  coveredAt(backendId: number, p: Point): boolean {
    const at = this.where.get(backendId);
    if (!at) return false;
    const doc = this.docs[at.doc]!;
    const paint = doc.paintOf.get(at.node);
    if (paint === undefined) return false;
    // What lies over it covers it, unless a tap there still reaches it: the control's own label
    // drawn over it (jQuery Mobile's checkbox rows), or both inside one control (a label's overlay
    // still ticks its box, a link's icon still follows the link). A clear box that takes taps
    // covers it as an opaque one does.
    const over = (box: Painted) =>
      box.paint > paint && within(p, box.rect) && !this.inside(doc, box.node, at.node) && !this.answeredTogether(doc, box.node, at.node);
    return doc.opaque.some(over) || doc.catchers.some(over);
  }

  private answeredTogether(doc: DocIndex, catcher: number, target: number): boolean {
    // The control's own label, or something it draws (its ::after box), over the control.
    const id = doc.ids.get(target);
    if (id !== undefined) for (let n = catcher; n >= 0; n = doc.parent[n] ?? -1) if (doc.labelFor.get(n) === id) return true;
    for (let n = doc.parent[target] ?? -1; n >= 0; n = doc.parent[n] ?? -1) if (doc.answers.has(n) && this.inside(doc, catcher, n)) return true;
    return false;
  }

  private inside(doc: DocIndex, node: number, ancestor: number): boolean {
    for (let n = node; n >= 0; n = doc.parent[n] ?? -1) if (n === ancestor) return true;
    return false;
  }
}

/**
 * The clip each node's own box is cut by, in one pass down the document (the snapshot lists parents
 * before children). An in-flow box is cut by every ancestor that clips; an absolutely positioned one
 * only by those at or above its containing block (the nearest positioned ancestor), and a fixed one
 * by none. The root and the body do not count: their overflow is the viewport's.
 */
function clipsOf(
  doc: Snapshot['documents'][number],
  style: (i: number, k: number) => string | undefined,
  nodeName: (i: number) => string | undefined,
  offset: Point,
): Clip[] {
  const n = doc.nodes.parentIndex.length;
  const layoutOf = new Map<number, number>();
  doc.layout.nodeIndex.forEach((nodeIndex, li) => {
    layoutOf.set(nodeIndex, li);
  });
  const own: Clip[] = new Array(n);
  const forFlow: Clip[] = new Array(n);
  const forAbsolute: Clip[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const p = doc.nodes.parentIndex[i] ?? -1;
    const position = style(i, POSITION);
    own[i] = p < 0 || position === 'fixed' ? undefined : position === 'absolute' ? forAbsolute[p] : forFlow[p];
    const li = layoutOf.get(i);
    const name = nodeName(i);
    const cuts =
      li !== undefined && name !== 'HTML' && name !== 'BODY' && (CLIPPING.has(style(i, OVERFLOW_Y) ?? '') || CLIPPING.has(style(i, OVERFLOW_X) ?? ''));
    if (cuts) {
      const [x, y, w, h] = doc.layout.bounds[li]!;
      forFlow[i] = meet(own[i], { x: x! + offset.x, y: y! + offset.y, width: w!, height: h! });
    } else forFlow[i] = own[i];
    forAbsolute[i] = position !== undefined && position !== 'static' ? forFlow[i] : p >= 0 ? forAbsolute[p] : undefined;
  }
  return own;
}

/** The intersection of a clip and a box (an empty one has no size). */
function meet(clip: Clip, r: Rect): Rect {
  if (!clip) return r;
  const x = Math.max(clip.x, r.x);
  const y = Math.max(clip.y, r.y);
  return {
    x,
    y,
    width: Math.max(0, Math.min(clip.x + clip.width, r.x + r.width) - x),
    height: Math.max(0, Math.min(clip.y + clip.height, r.y + r.height) - y),
  };
}

/** The `clip` of a box: absent when the clip leaves all of it (to half a pixel), null when it leaves none. */
function clipped(rect: Rect, clip: Clip): { clip?: Rect | null } {
  if (!clip) return {};
  const m = meet(clip, rect);
  if (m.width <= 0 || m.height <= 0) return rect.width > 0 && rect.height > 0 ? { clip: null } : {};
  if (m.width >= rect.width - 0.5 && m.height >= rect.height - 0.5) return {};
  return { clip: m };
}

const ANSWERING_TAGS = new Set(['LABEL', 'A', 'BUTTON', 'SUMMARY']);
const ANSWERING_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'option']);

/** Positions a box takes to lie over other content: in flow, a box only overlaps by odd margins. */
const CATCHING_POSITIONS = new Set(['fixed', 'absolute']);

const within = (p: Point, r: Rect) => p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;

/** rgb(…) or rgba(…, a) with a > 0.5: a background that hides what is under it. */
function opaque(color: string | undefined): boolean {
  if (!color) return false;
  const m = color.match(/^rgba?\(([^)]*)\)$/);
  if (!m) return false;
  const parts = m[1]!.split(',').map((x) => Number(x.trim()));
  return parts.length === 3 || (parts[3] ?? 0) > 0.5;
}
