// The web page's accessibility tree as normalised nodes. Chromium's own AX tree gives roles, names,
// values and states (open shadow roots included); one DOMSnapshot gives every element's box and
// style, so frames come from the renderer's layout, not from a guess. Boxes are document
// coordinates; a point on the screen is (document − visual viewport offset) × visual viewport scale,
// which also holds for pages without a viewport meta tag (laid out at 980 px and scaled down).
import type { CDPSession } from 'playwright-core';
import type { NodeStates, Rect, ScreenSize, TreeNode, TreeSnapshot } from '../backend.js';
import { type DomInfo, DomIndex, SNAPSHOT_STYLES, type Snapshot } from './dom-snapshot.js';

interface AXValue {
  value?: unknown;
  /** How the name was computed, most important first (Chromium's name sources). */
  sources?: AXNameSource[];
}
interface AXNameSource {
  type: string;
  value?: { value?: unknown };
  superseded?: boolean;
  nativeSource?: string;
  nativeSourceValue?: { relatedNodes?: { backendDOMNodeId?: number }[] };
}
interface AXNode {
  nodeId: string;
  ignored: boolean;
  role?: AXValue;
  name?: AXValue;
  value?: AXValue;
  properties?: { name: string; value: AXValue }[];
  parentId?: string;
  childIds?: string[];
  backendDOMNodeId?: number;
}

/** Chromium role names to the one vocabulary every platform's nodes use. */
const ROLE: Record<string, string> = {
  button: 'button',
  link: 'link',
  heading: 'heading',
  textbox: 'textfield',
  searchbox: 'textfield',
  spinbutton: 'textfield',
  date: 'textfield',
  Date: 'textfield',
  DateTime: 'textfield',
  InputTime: 'textfield',
  checkbox: 'checkbox',
  switch: 'switch',
  radio: 'radio',
  slider: 'slider',
  combobox: 'select',
  listbox: 'select',
  option: 'option',
  menuitem: 'menuitem',
  menuitemcheckbox: 'checkbox',
  menuitemradio: 'radio',
  treeitem: 'cell',
  // <summary> and <input type=color>: pressed, they open something.
  DisclosureTriangle: 'button',
  ColorWell: 'button',
  tab: 'tab',
  tablist: 'tabbar',
  list: 'list',
  listitem: 'cell',
  row: 'cell',
  gridcell: 'cell',
  img: 'image',
  image: 'image',
  StaticText: 'text',
  paragraph: 'text',
  dialog: 'dialog',
  alertdialog: 'alert',
  alert: 'alert',
  status: 'status',
  progressbar: 'progress',
  navigation: 'navigation',
  banner: 'header',
  sectionheader: 'header',
  contentinfo: 'footer',
  sectionfooter: 'footer',
  toolbar: 'toolbar',
  Canvas: 'canvas',
  canvas: 'canvas',
  group: 'group',
  radiogroup: 'group',
};

const INTERACTIVE = new Set(['button', 'link', 'textfield', 'checkbox', 'switch', 'radio', 'slider', 'select', 'option', 'menuitem', 'tab']);
/** Structure without meaning of its own: dropped, its children attach to the nearest kept ancestor. */
const CONTAINER_ONLY = new Set([
  'generic',
  'none',
  'presentation',
  'InlineTextBox',
  'LineBreak',
  'Iframe',
  'IframePresentational',
  'main',
  'section',
  'region',
  'article',
  'Section',
  'LabelText',
  'DescriptionList',
  'Ruby',
  'figure',
]);
/** Never a node, whatever the name: the document (its name is the page title) and regions (their name repeats a heading). */
const ROOTS = new Set(['RootWebArea', 'WebArea', 'region']);

/** How often a read is taken again when the DOM changed between its two halves. */
const TORN_READ_ATTEMPTS = 3;

interface RawRead {
  metrics: { cssVisualViewport: { pageX: number; pageY: number; clientWidth: number; clientHeight: number; scale: number } };
  dom: DomIndex;
  trees: AXNode[][];
  /** Live accessibility nodes whose DOM node the snapshot does not hold: the DOM changed in between. */
  torn: number;
}

/**
 * The accessibility tree and the DOM snapshot are two calls, and a page can change between them: a
 * clock replacing its text node every second leaves the tree naming a node the snapshot never saw
 * (or the other way round), and the clock would drop out of that one read and out of the screen's
 * identity with it. Such a read is taken again; the two calls are also sent together to keep the
 * window small.
 */
async function readRaw(cdp: CDPSession): Promise<RawRead> {
  const [metrics, snapshot, frameTree, main] = await Promise.all([
    cdp.send('Page.getLayoutMetrics'),
    cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: SNAPSHOT_STYLES, includeDOMRects: true, includePaintOrder: true }),
    cdp.send('Page.getFrameTree'),
    cdp.send('Accessibility.getFullAXTree', {}).then(
      (t) => t.nodes as unknown as AXNode[],
      () => [] as AXNode[],
    ),
  ]);
  const dom = new DomIndex(snapshot as unknown as Snapshot);
  // Same-origin frames answer; a cross-origin (out-of-process) frame does not, and is left out.
  const children = await Promise.all(
    childFrameIds(frameTree.frameTree).map((frameId) =>
      cdp.send('Accessibility.getFullAXTree', { frameId }).then(
        (t) => t.nodes as unknown as AXNode[],
        () => [] as AXNode[],
      ),
    ),
  );
  const trees = [main, ...children];
  let torn = 0;
  for (const tree of trees) torn += tornNodes(tree, dom);
  return { metrics: metrics as RawRead['metrics'], dom, trees, torn };
}

/**
 * Elements whose built-in controls live in a user-agent shadow tree: the accessibility tree names
 * their inner parts (an input's editor, a date field's day and month, a select's popup) and a DOM
 * snapshot never holds them, on every read. Missing under one of these is not a torn read.
 */
const UA_SHADOW_HOSTS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'VIDEO', 'AUDIO', 'DETAILS', 'METER', 'PROGRESS', 'IMG', 'OBJECT', 'EMBED']);

/** Live nodes whose DOM node the snapshot lacks though the element they hang from is no built-in control. */
function tornNodes(tree: AXNode[], dom: DomIndex): number {
  const byId = new Map(tree.map((n) => [n.nodeId, n]));
  const insideControl = (n: AXNode): boolean => {
    for (let p = n.parentId === undefined ? undefined : byId.get(n.parentId); p; p = p.parentId === undefined ? undefined : byId.get(p.parentId)) {
      const name = p.backendDOMNodeId === undefined ? undefined : dom.nodeName(p.backendDOMNodeId);
      if (name !== undefined) return UA_SHADOW_HOSTS.has(name);
    }
    return false;
  };
  let torn = 0;
  for (const n of tree) if (!n.ignored && n.backendDOMNodeId !== undefined && !dom.info.has(n.backendDOMNodeId) && !insideControl(n)) torn++;
  return torn;
}

export async function readTree(cdp: CDPSession, screen: ScreenSize): Promise<TreeSnapshot> {
  const started = performance.now();
  let raw = await readRaw(cdp);
  let retakes = 0;
  while (raw.torn > 0 && retakes < TORN_READ_ATTEMPTS - 1) {
    raw = await readRaw(cdp);
    retakes++;
  }
  const { dom, trees } = raw;
  const vv = raw.metrics.cssVisualViewport;
  const viewport = { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight };

  const nodes: TreeNode[] = [];
  let skippedInvisible = 0;
  const toScreen = (r: Rect): Rect => ({
    x: round((r.x - vv.pageX) * vv.scale),
    y: round((r.y - vv.pageY) * vv.scale),
    width: round(r.width * vv.scale),
    height: round(r.height * vv.scale),
  });
  for (const ax of trees) {
    const byId = new Map(ax.map((n) => [n.nodeId, n]));
    const keptIndex = new Map<string, number>();
    const visit = (node: AXNode, parent: number | null, inControl: boolean) => {
      let here = parent;
      const rawRole = String(node.role?.value ?? '');
      // A list's bullet or number is drawn decoration: a line of "•" per row is noise an agent reads.
      if (rawRole === 'ListMarker') return;
      const info = node.backendDOMNodeId === undefined ? undefined : dom.info.get(node.backendDOMNodeId);
      // A container with a listener of its own that holds two controls or more (a sheet's header
      // with Cancel and OK, each listening too) is their row, not one control: they are tapped.
      const tapped = !node.ignored && !inControl && answersClicks(rawRole, info, screen, vv.scale) && !holdsControls(node, byId, dom);
      // A plain container named only by the words it holds (a page wrapper made focusable for focus
      // management) is no line of its own, unless it answers taps: its words are already lines. A
      // label named by its words keeps its line: it is often the only line of a row's text.
      const name = !tapped && rawRole === 'generic' && namedByContents(node) ? '' : String(node.name?.value ?? '').trim();
      // A scrolling container is kept, unnamed, as structure: what it holds scrolls under the bars.
      const scroller = !tapped && !node.ignored && info?.scroller === true && CONTAINER_ONLY.has(rawRole) && !name;
      if (!node.ignored && !ROOTS.has(rawRole) && (!(CONTAINER_ONLY.has(rawRole) && !name) || scroller || tapped) && node.backendDOMNodeId !== undefined) {
        const mapped = ROLE[rawRole] ?? rawRole.toLowerCase();
        const role = scroller ? 'scroll' : tapped ? (mapped === 'cell' ? 'cell' : 'button') : mapped;
        const interactive = INTERACTIVE.has(role) || tapped;
        // A control drawn by its label (a radio or checkbox visually hidden, its styled label what
        // shows and what a tap hits) is where its label is.
        const byLabel = interactive && !drawn(info) ? (drawnLabels(node, dom) ?? drawnByParent(info, dom)) : undefined;
        const rect = byLabel ? byLabel.rect : info?.visible ? info.rect : undefined;
        const cut = byLabel ? dom.info.get(byLabel.ids[0]!)?.clip : info?.clip;
        // What paints it: the control itself, or the labels that draw it (their own content lies over the hidden input).
        const painters = byLabel ? byLabel.ids : [node.backendDOMNodeId!];
        if (!rect || rect.width <= 0 || rect.height <= 0) {
          skippedInvisible++;
        } else {
          const frame = toScreen(rect);
          // What shows of it: cut by its containers, then by the viewport.
          const shown = cut === null ? null : intersect(cut ?? rect, viewport);
          const index = nodes.length;
          nodes.push({
            index,
            parent,
            role,
            label: name,
            value: axValue(node),
            states: statesOf(node),
            frame,
            id: info?.stableId ?? null,
            source: 'web',
            interactive,
            unnamed: interactive && name === '',
            offscreen: cut === null || frame.x + frame.width <= 0 || frame.y + frame.height <= 0 || frame.x >= screen.widthPt || frame.y >= screen.heightPt,
            ...(cut !== undefined ? { clip: cut && toScreen(cut) } : {}),
            ...(info?.scroller ? { scrollable: true } : {}),
            ...(interactive && nameFromPlaceholder(node) ? { nameFrom: 'placeholder' as const } : {}),
            // Painted over wherever it shows (a pushed page over the last one): no tap can reach it.
            // A row half under a tab bar is not: part of it shows, and the outline taps that part.
            covered:
              shown !== null &&
              SAMPLES.every(([fx, fy]) => painters.every((id) => dom.coveredAt(id, { x: shown.x + fx * shown.width, y: shown.y + fy * shown.height }))),
          });
          keptIndex.set(node.nodeId, index);
          here = index;
        }
      }
      const inside = inControl || (here !== parent && nodes[here!]!.interactive);
      for (const childId of node.childIds ?? []) {
        const child = byId.get(childId);
        if (child) visit(child, here, inside);
      }
    };
    const root = ax.find((n) => !n.parentId);
    if (root) visit(root, null, false);
  }
  return { nodes, skippedInvisible, screen, durationMs: Math.round((performance.now() - started) * 10) / 10, ...(retakes > 0 ? { retakes } : {}) };
}

/** Roles with no control meaning that a click listener of their own makes a control. */
const TAPPABLE_ROLES = new Set([
  'generic',
  'none',
  'presentation',
  'section',
  'Section',
  'article',
  'figure',
  'group',
  'paragraph',
  'listitem',
  'img',
  'image',
]);

/**
 * A plain element (a div, a list item, a picture) that answers a click by itself: a picker's row,
 * a card, an icon with a handler. Chromium knows it from the element's own listeners; one that
 * covers more than half the screen is a root delegating clicks for its children, or a backdrop, and
 * is no control of its own. A listener delegated to an ancestor (jQuery's `.on(type, selector)`,
 * React's root) cannot be seen from the element and is not detected.
 */
function answersClicks(rawRole: string, info: DomInfo | undefined, screen: ScreenSize, scale: number): boolean {
  if (!info?.clickable || !info.visible || !TAPPABLE_ROLES.has(rawRole)) return false;
  const area = info.rect.width * info.rect.height * scale * scale;
  return area > 0 && area <= (screen.widthPt * screen.heightPt) / 2;
}

/** Whether two or more of the node's descendants are controls: a listener of their own, or a control's role. */
function holdsControls(node: AXNode, byId: Map<string, AXNode>, dom: DomIndex): boolean {
  let found = 0;
  const stack = [...(node.childIds ?? [])];
  while (stack.length && found < 2) {
    const child = byId.get(stack.pop()!);
    if (!child) continue;
    const info = child.backendDOMNodeId === undefined ? undefined : dom.info.get(child.backendDOMNodeId);
    const role = String(child.role?.value ?? '');
    if (!child.ignored && (CONTROL_ROLES.has(role) || (info?.clickable && info.visible && TAPPABLE_ROLES.has(role)))) found++;
    else stack.push(...(child.childIds ?? []));
  }
  return found >= 2;
}

/** Chromium's roles of controls a user operates. */
const CONTROL_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'slider',
  'spinbutton',
  'menuitem',
  'tab',
  'option',
]);

/**
 * Shown at a size a finger can find, where a scroll can bring it: a control 1 px square, clipped to
 * nothing, or pushed before the document's start (`left: -9999px`, no scroll reaches there) is hidden
 * on purpose.
 */
function drawn(info: { visible: boolean; rect: Rect } | undefined): boolean {
  if (info?.visible !== true) return false;
  const r = info.rect;
  return r.width >= 2 && r.height >= 2 && r.x + r.width > 0 && r.y + r.height > 0;
}

/** The labels Chromium took a control's name from (<label for>, a wrapping <label>). */
function relatedLabels(node: AXNode): number[] {
  const out: number[] = [];
  for (const s of node.name?.sources ?? []) {
    if (s.type !== 'relatedElement' || !/^label/.test(s.nativeSource ?? '')) continue;
    for (const r of s.nativeSourceValue?.relatedNodes ?? []) if (r.backendDOMNodeId !== undefined) out.push(r.backendDOMNodeId);
  }
  return out;
}

/** A hidden control's visible labels and the box of them together; undefined when none shows. */
function drawnLabels(node: AXNode, dom: DomIndex): { rect: Rect; ids: number[] } | undefined {
  const ids = relatedLabels(node).filter((id) => drawn(dom.info.get(id)));
  if (!ids.length) return undefined;
  const rects = ids.map((id) => dom.info.get(id)!.rect);
  const x0 = Math.min(...rects.map((r) => r.x));
  const y0 = Math.min(...rects.map((r) => r.y));
  const x1 = Math.max(...rects.map((r) => r.x + r.width));
  const y1 = Math.max(...rects.map((r) => r.y + r.height));
  return { rect: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, ids };
}

/**
 * A control made transparent so that its parent's drawing shows in its place: where the two overlap,
 * the control's own box (it still takes the taps), painted by the parent. Undefined when the parent
 * does not show or lies elsewhere.
 */
function drawnByParent(info: DomInfo | undefined, dom: DomIndex): { rect: Rect; ids: number[] } | undefined {
  if (info?.drawnByParent === undefined || info.rect.width < 2 || info.rect.height < 2) return undefined;
  const parent = dom.info.get(info.drawnByParent);
  if (!drawn(parent)) return undefined;
  const both = intersect(info.rect, parent!.rect);
  if (!both || both.width * both.height < 0.5 * info.rect.width * info.rect.height) return undefined;
  return { rect: both, ids: [info.drawnByParent] };
}

/** The name Chromium gave is the text of the node's contents, not a name of its own. */
function namedByContents(node: AXNode): boolean {
  const used = (node.name?.sources ?? []).find((s) => !s.superseded && s.value?.value !== undefined && s.value.value !== '');
  return used?.type === 'contents';
}

/** The control's name is its placeholder (or nothing): no label is tied to it. */
function nameFromPlaceholder(node: AXNode): boolean {
  const used = (node.name?.sources ?? []).find((s) => !s.superseded && s.value?.value !== undefined && s.value.value !== '');
  return used === undefined ? String(node.name?.value ?? '') === '' : used.type === 'placeholder';
}

function childFrameIds(tree: { childFrames?: { frame: { id: string }; childFrames?: unknown[] }[] }): string[] {
  return (tree.childFrames ?? []).flatMap((c) => [c.frame.id, ...childFrameIds(c as never)]);
}

function axValue(node: AXNode): string | null {
  const v = node.value?.value;
  if (v === undefined || v === null || v === '') return null;
  return String(v);
}

function statesOf(node: AXNode): NodeStates {
  const states: NodeStates = {};
  for (const p of node.properties ?? []) {
    const v = p.value.value;
    switch (p.name) {
      case 'checked':
      case 'pressed':
        states.checked = v === 'mixed' ? 'mixed' : v === true || v === 'true';
        break;
      case 'selected':
        states.selected = v === true;
        break;
      case 'disabled':
        states.disabled = v === true;
        break;
      case 'focused':
        states.focused = v === true;
        break;
      case 'expanded':
        states.expanded = v === true;
        break;
      case 'readonly':
        if (v === true) states.readonly = true;
        break;
    }
  }
  return states;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** Where an element is tested for being painted over: its middle and the middles of its edges' quarters. */
const SAMPLES = [
  [0.5, 0.5],
  [0.5, 0.15],
  [0.5, 0.85],
  [0.15, 0.5],
  [0.85, 0.5],
] as const;

function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.width, b.x + b.width) - x;
  const h = Math.min(a.y + a.height, b.y + b.height) - y;
  return w > 0 && h > 0 ? { x, y, width: w, height: h } : null;
}
