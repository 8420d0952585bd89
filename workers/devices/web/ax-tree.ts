// The web page's accessibility tree as normalised nodes. Chromium's own AX tree gives roles, names,
// values and states (open shadow roots included); one DOMSnapshot gives every element's box and
// style, so frames come from the renderer's layout, not from a guess. Boxes are document
// coordinates; a point on the screen is (document − visual viewport offset) × visual viewport scale,
// which also holds for pages without a viewport meta tag (laid out at 980 px and scaled down).
import type { CDPSession } from 'playwright-core';
import type { NodeStates, Rect, ScreenSize, TreeNode, TreeSnapshot } from '../backend.js';

interface AXValue {
  value?: unknown;
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

interface DomInfo {
  rect: Rect;
  visible: boolean;
  stableId: string | null;
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
const CONTAINER_ONLY = new Set(['generic', 'none', 'presentation', 'InlineTextBox', 'LineBreak', 'Iframe', 'IframePresentational', 'main', 'section', 'region', 'article', 'Section', 'LabelText', 'DescriptionList', 'Ruby', 'figure']);
/** Never a node, whatever the name: the document (its name is the page title) and regions (their name repeats a heading). */
const ROOTS = new Set(['RootWebArea', 'WebArea', 'region']);

export async function readTree(cdp: CDPSession, screen: ScreenSize): Promise<TreeSnapshot> {
  const started = performance.now();
  const [metrics, snapshot, frameTree] = await Promise.all([
    cdp.send('Page.getLayoutMetrics'),
    cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: ['display', 'visibility', 'opacity'], includeDOMRects: true }),
    cdp.send('Page.getFrameTree'),
  ]);
  const vv = metrics.cssVisualViewport;
  const dom = domIndex(snapshot as unknown as Snapshot);
  const frameIds = [frameTree.frameTree.frame.id, ...childFrameIds(frameTree.frameTree)];
  // Same-origin frames answer; a cross-origin (out-of-process) frame does not, and is left out.
  const trees = await Promise.all(frameIds.map((frameId, i) => cdp.send('Accessibility.getFullAXTree', i === 0 ? {} : { frameId }).then((t) => t.nodes as unknown as AXNode[], () => [] as AXNode[])));

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
    const visit = (node: AXNode, parent: number | null) => {
      let here = parent;
      const rawRole = String(node.role?.value ?? '');
      const name = String(node.name?.value ?? '').trim();
      if (!node.ignored && !ROOTS.has(rawRole) && !(CONTAINER_ONLY.has(rawRole) && !name) && node.backendDOMNodeId !== undefined) {
        const info = dom.get(node.backendDOMNodeId);
        if (!info || !info.visible || info.rect.width <= 0 || info.rect.height <= 0) {
          skippedInvisible++;
        } else {
          const role = ROLE[rawRole] ?? rawRole.toLowerCase();
          const frame = toScreen(info.rect);
          const interactive = INTERACTIVE.has(role);
          const index = nodes.length;
          nodes.push({
            index,
            parent,
            role,
            label: name,
            value: valueOf(node),
            states: statesOf(node),
            frame,
            id: info.stableId,
            source: 'web',
            interactive,
            unnamed: interactive && name === '',
            offscreen: frame.x + frame.width <= 0 || frame.y + frame.height <= 0 || frame.x >= screen.widthPt || frame.y >= screen.heightPt,
          });
          keptIndex.set(node.nodeId, index);
          here = index;
        }
      }
      for (const childId of node.childIds ?? []) {
        const child = byId.get(childId);
        if (child) visit(child, here);
      }
    };
    const root = ax.find((n) => !n.parentId);
    if (root) visit(root, null);
  }
  return { nodes, skippedInvisible, screen, durationMs: Math.round((performance.now() - started) * 10) / 10 };
}

function childFrameIds(tree: { childFrames?: { frame: { id: string }; childFrames?: unknown[] }[] }): string[] {
  return (tree.childFrames ?? []).flatMap((c) => [c.frame.id, ...childFrameIds(c as never)]);
}

function valueOf(node: AXNode): string | null {
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

// ---------------------------------------------------------------- DOMSnapshot
interface Snapshot {
  strings: string[];
  documents: {
    nodes: {
      parentIndex: number[];
      backendNodeId: number[];
      attributes: number[][];
      contentDocumentIndex?: { index: number[]; value: number[] };
    };
    layout: { nodeIndex: number[]; bounds: number[][]; styles: number[][] };
    scrollOffsetX?: number;
    scrollOffsetY?: number;
  }[];
}

/** backendNodeId → page-absolute box, effective visibility and stable id, across every document. */
function domIndex(snap: Snapshot): Map<number, DomInfo> {
  const out = new Map<number, DomInfo>();
  const s = snap.strings;
  // Where each child document sits in its parent: from the iframe element that holds it.
  const offsets: { x: number; y: number }[] = snap.documents.map(() => ({ x: 0, y: 0 }));
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
    doc.layout.nodeIndex.forEach((nodeIndex, li) => layoutOf.set(nodeIndex, li));
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
        t = style(i, 2) === '0' || transparent(doc.nodes.parentIndex[i] ?? -1);
        transparentMemo.set(i, t);
      }
      return t;
    };
    const hidden = (i: number): boolean => style(i, 0) === 'none' || style(i, 1) === 'hidden' || style(i, 1) === 'collapse' || transparent(i);
    doc.nodes.backendNodeId.forEach((backendId, i) => {
      const li = layoutOf.get(i);
      if (li === undefined) {
        out.set(backendId, { rect: { x: 0, y: 0, width: 0, height: 0 }, visible: false, stableId: null });
        return;
      }
      const [x, y, w, h] = doc.layout.bounds[li]!;
      const attrs = doc.nodes.attributes[i] ?? [];
      let id: string | null = null;
      let testId: string | null = null;
      for (let k = 0; k + 1 < attrs.length; k += 2) {
        const key = s[attrs[k]!];
        if (key === 'id') id = s[attrs[k + 1]!] ?? null;
        if (key === 'data-testid') testId = s[attrs[k + 1]!] ?? null;
      }
      out.set(backendId, {
        rect: { x: x! + offsets[di]!.x, y: y! + offsets[di]!.y, width: w!, height: h! },
        visible: !hidden(i),
        stableId: testId ?? id,
      });
    });
  });
  return out;
}
