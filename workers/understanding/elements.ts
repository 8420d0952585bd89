// From a normalised tree to the elements a screen is read as: every control, and every piece of
// text or named image that is not part of a control. A control takes its words from the text drawn
// inside it (containment, never IoU): a row's title and subtitle are that row, not three lines.
import type { NodeSource, NodeStates, Point, Rect, TreeNode, TreeSnapshot } from '../devices/backend.js';
import { area, containment, intersect } from './geometry.js';
import { normaliseLabel } from './names.js';

export type ElementFlag = 'unnamed' | 'offscreen' | 'partly-offscreen' | 'covered' | 'partly-covered' | 'probed' | 'label-beside' | 'volatile';

export interface Element {
  /** The tree node it came from (index into the snapshot's nodes). */
  node: number;
  role: string;
  label: string;
  /** Further text drawn inside a control (a row's subtitle), joined. */
  detail: string | null;
  value: string | null;
  states: NodeStates;
  id: string | null;
  source: NodeSource;
  interactive: boolean;
  frame: Rect;
  /** The part of the frame its containers let show, where one cuts it (null: none); the platform tells (TreeNode.clip). */
  clip?: Rect | null;
  /** The part a user can see and touch; null when none is. Set by visibility.ts. */
  visible: Rect | null;
  /** Centre of the visible part, in points; null when nothing of it shows. */
  tap: Point | null;
  flags: ElementFlag[];
  /** Hidden under another layer the platform drew (a page pushed over this one): not this screen's. */
  underLayer: boolean;
  /**
   * The platform knows what is painted over what (web) and found nothing over it: a bar's band on
   * the screen does not hide it (a side panel's search field drawn over the page's top bar).
   */
  drawnOnTop?: boolean;
  /** The label was read from pixels (text recognition), not told by the tree: a guess with a confidence. */
  fromPixels?: { confidence: number };
  /** Text read from pixels inside the element that contradicts the tree's label or value; shown beside it, not instead. */
  pixelText?: string;
}

/** Roles that are structure (regions, lists, layers), never a line of their own. */
export const STRUCTURE = new Set([
  'form',
  'list',
  'scroll',
  'navbar',
  'tabbar',
  'toolbar',
  'dialog',
  'alert',
  'keyboard',
  'webview',
  'group',
  'window',
  'application',
  'other',
  'header',
  'footer',
  'navigation',
  'canvas',
]);
const TEXTUAL = new Set(['text', 'heading', 'status', 'progress', 'image', 'link']);
/** Generic roles a platform gives things it has no word for: with words and no children, a line. */
const LEAF_WITH_WORDS = new Set(['other', 'group']);
/** A control's words: at most this many texts from inside it, the rest dropped. */
const MAX_TEXTS = 3;

export function elementsOf(tree: TreeSnapshot): Element[] {
  const children = childrenOf(tree.nodes);
  const absorbed = new Set<number>();
  const out: Element[] = [];
  for (const n of tree.nodes) {
    if (absorbed.has(n.index)) continue;
    if (n.interactive) {
      const texts = textsInside(n, tree.nodes, children).filter((t) => !absorbed.has(t.index));
      for (const t of texts) absorbed.add(t.index);
      const words = unique(texts.map((t) => normaliseLabel(t.label || t.value || '')).filter(Boolean));
      const own = normaliseLabel(n.label);
      const label = own || words[0] || '';
      const rest = words.filter((w) => w !== label && !label.includes(w)).slice(0, MAX_TEXTS - 1);
      out.push(element(n, label, rest.length ? rest.join(', ') : null));
    } else if (TEXTUAL.has(n.role) || (!STRUCTURE.has(n.role) && n.role !== 'cell') || (LEAF_WITH_WORDS.has(n.role) && !children[n.index]!.length)) {
      const label = normaliseLabel(n.label);
      const value = n.value === null ? null : normaliseLabel(n.value);
      if (!label && !value) continue;
      if (n.role === 'image' && !label) continue; // decoration
      if (duplicatesAncestor(n, tree.nodes, label)) continue;
      out.push(element(n, label || value!, null, label ? value : null));
    } else if (n.role === 'cell') {
      // A cell the platform does not call interactive (iOS static cells): its texts make one line.
      const texts = textsInside(n, tree.nodes, children);
      const words = unique([normaliseLabel(n.label), ...texts.map((t) => normaliseLabel(t.label || t.value || ''))].filter(Boolean));
      if (!words.length) continue;
      for (const t of texts) absorbed.add(t.index);
      out.push(element(n, words[0]!, words.length > 1 ? words.slice(1, MAX_TEXTS).join(', ') : null));
    }
  }
  return withoutDuplicates(withoutControlNames(labelledByLayout(out, tree.nodes)));
}

const TOGGLES = new Set(['switch', 'checkbox', 'radio']);
/** Controls a row is made of: what may hold a toggle of the same meaning (an iOS cell and its switch). */
const ROWS = new Set(['cell', 'button', 'link', 'group', 'other', 'row', 'listitem', 'menuitem']);
/** Controls that take text or a value: never a row, never one thing with a control laid over them. */
export const ENTRY = new Set(['textfield', 'securefield', 'searchfield', 'textarea', 'select', 'combobox', 'slider']);
/** What `type` may type into. */
export const TAKES_TEXT = new Set(['textfield', 'securefield', 'searchfield', 'textarea', 'combobox']);

/**
 * One thing described twice, by a container and by what it contains (an iOS cell and its switch, a
 * link wrapped in a text view): the same words, one box inside the other. The inner one stays, as
 * it is what a tap must hit; an unnamed toggle in a named row takes the row's name first. A text
 * field is no row: a checkbox laid over its edge (a to-do list's "toggle all") is a control of its
 * own, and the field stays.
 */
function withoutDuplicates(els: Element[]): Element[] {
  for (const outer of els) {
    if (!outer.interactive || !outer.label || !ROWS.has(outer.role)) continue;
    const toggles = els.filter((t) => t !== outer && TOGGLES.has(t.role) && !t.label && containment(t.frame, outer.frame) >= 0.9);
    if (toggles.length === 1) {
      toggles[0]!.label = outer.label;
      toggles[0]!.flags = toggles[0]!.flags.filter((f) => f !== 'unnamed');
    }
  }
  const drop = new Set<Element>();
  for (const a of els) {
    for (const b of els) {
      if (a === b || drop.has(a) || drop.has(b) || !a.label || a.label !== b.label) continue;
      // b inside a: drop a, unless b is mere text and a the control, or a takes text (two controls,
      // not one: a search field and its Search button). A link is never part of an entry: an iOS
      // text view holding a link of the same words is the link's text.
      if ((ENTRY.has(a.role) && b.role !== 'link') || (a.interactive && b.interactive && ENTRY.has(b.role))) continue;
      if (containment(b.frame, a.frame) >= 0.9 && (b.interactive || !a.interactive) && area(b.frame) <= area(a.frame)) {
        drop.add(a);
        // What the outer one said of their state stays said (a tab holding its link: the tab is the selected one).
        b.states = { ...pick(a.states, ['selected', 'checked', 'expanded']), ...b.states };
      }
    }
  }
  return els.filter((e) => !drop.has(e));
}

/**
 * A text that names a control beside it in the same row (a switch's "Wi-Fi", a field's caption
 * whose words the field already carries) is that control's label, not a line of its own.
 */
function withoutControlNames(els: Element[]): Element[] {
  const controls = els.filter((e) => e.interactive && e.label);
  return els.filter((e) => {
    if (e.interactive || e.role !== 'text') return true;
    return !controls.some((c) => c.label === e.label && (sameRow(c.frame, e.frame) || captionOf(e.frame, c.frame)));
  });
}

/**
 * A field no label is tied to (its only name its placeholder, or none) takes the text the layout
 * pairs with it: in its row just before it (a label cell beside an input cell), else a caption just
 * above its left part. The text is then its name, not a line of its own, and the field says so
 * (`label-beside`); its placeholder, if any, stays as its detail. `type` into the label's words then
 * types into the field.
 */
function labelledByLayout(els: Element[], nodes: TreeNode[]): Element[] {
  const used = new Set<Element>();
  const texts = els.filter((e) => e.role === 'text' && !e.interactive && isLabelText(e.label));
  for (const field of els) {
    if (!ENTRY.has(field.role) || (field.label && nodes[field.node]!.nameFrom !== 'placeholder')) continue;
    const free = texts.filter((t) => !used.has(t));
    const beside = free
      .filter((t) => sameRow(t.frame, field.frame) && t.frame.x + t.frame.width <= field.frame.x + 8 && field.frame.x - (t.frame.x + t.frame.width) <= 120)
      .sort((a, b) => b.frame.x - a.frame.x)[0];
    const above = free.filter((t) => captionOf(t.frame, field.frame) && Math.abs(t.frame.x - field.frame.x) <= 24).sort((a, b) => b.frame.y - a.frame.y)[0];
    const label = beside ?? above;
    if (!label) continue;
    used.add(label);
    const placeholder = field.label;
    field.label = label.label.replace(/\s*[:：]\s*$/, '');
    field.detail = placeholder || field.detail;
    field.flags = [...field.flags.filter((f) => f !== 'unnamed'), 'label-beside'];
  }
  return els.filter((e) => !used.has(e));
}

/** Words that can name a field: short, not a sentence. */
function isLabelText(label: string): boolean {
  return label.length > 0 && label.length <= 40 && !/[.!?]$/.test(label);
}

function sameRow(a: Rect, b: Rect): boolean {
  const overlap = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return overlap >= 0.5 * Math.min(a.height, b.height);
}

/** Text drawn just above a control, over its left part: a field's caption. */
function captionOf(text: Rect, control: Rect): boolean {
  const gap = control.y - (text.y + text.height);
  const overlap = Math.min(text.x + text.width, control.x + control.width) - Math.max(text.x, control.x);
  return gap >= -1 && gap <= Math.max(12, text.height) && overlap > 0;
}

function element(n: TreeNode, label: string, detail: string | null, value: string | null = n.value === null ? null : normaliseLabel(n.value)): Element {
  return {
    node: n.index,
    role: n.role,
    label,
    detail,
    value: value && value !== label && value !== detail ? value : null,
    states: n.states,
    id: n.id,
    source: n.source,
    interactive: n.interactive,
    frame: n.frame,
    ...(n.clip !== undefined ? { clip: n.clip } : {}),
    visible: null,
    tap: null,
    // A name made only of icon glyphs is none: normalising it left nothing.
    flags: [
      ...((n.unnamed || (n.interactive && n.label !== '')) && !label ? (['unnamed'] as const) : []),
      ...(n.covered ? (['covered'] as const) : []),
      ...(n.probed ? (['probed'] as const) : []),
    ],
    underLayer: n.covered === true,
    ...(n.covered === false ? { drawnOnTop: true } : {}),
    ...(n.source === 'ocr' || n.labelFrom === 'ocr' ? { fromPixels: { confidence: n.confidence ?? 0 } } : {}),
    ...(n.pixelText ? { pixelText: n.pixelText } : {}),
  };
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function childrenOf(nodes: TreeNode[]): number[][] {
  const out: number[][] = nodes.map(() => []);
  for (const n of nodes) if (n.parent !== null) out[n.parent]!.push(n.index);
  return out;
}

/** Text-bearing, non-interactive descendants drawn inside the node (stopping at nested controls). */
function textsInside(n: TreeNode, nodes: TreeNode[], children: number[][]): TreeNode[] {
  const found: TreeNode[] = [];
  const walk = (i: number) => {
    for (const c of children[i]!) {
      const child = nodes[c]!;
      if (child.interactive) continue; // a switch in a row is its own control
      if ((child.label || child.value) && TEXTUAL.has(child.role) && containment(child.frame, n.frame) >= 0.9) found.push(child);
      walk(c);
    }
  };
  walk(n.index);
  return found;
}

/** A text repeating the label of an ancestor it sits inside (iOS: a cell and its own static text). */
function duplicatesAncestor(n: TreeNode, nodes: TreeNode[], label: string): boolean {
  for (let p = n.parent; p !== null; p = nodes[p]!.parent) {
    const a = nodes[p]!;
    // Structure shows its name nowhere else (a navigation bar's title), so only controls, cells and
    // layers (whose name heads their section) make a text a duplicate.
    if ((!STRUCTURE.has(a.role) || a.role === 'dialog' || a.role === 'alert') && normaliseLabel(a.label) === label && intersect(a.frame, n.frame)) return true;
  }
  return false;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
