/// <reference lib="dom" />
// Ground truth for the field suite, read from Chromium itself and never from simfleet's own
// reading: every visible interactive element on screen, with the accessible name, role and states
// that Chromium's accessibility tree gives it, its box in the layout viewport and on the screen,
// whether something else is on top of it, and `hits(x, y)`: which of them a tap at a screen point
// lands on.
//
// Included (the main frame only):
// - every node of the accessibility tree (Accessibility.getFullAXTree) with an interactive role:
//   buttons (and input type=button/submit/reset/image/file), links, text boxes, search boxes, spin
//   buttons, sliders, check boxes, radios, switches, combo boxes (a <select>), list boxes, options,
//   menu items, tabs, tree items, date/time/colour inputs, <summary>; and editable, focusable nodes
//   (contenteditable). An interactive node inside another whose role is a leaf (button, link, text
//   box, check box, …) is left out: the browser's own parts of a date input, a link's inner button.
// - a check box, radio or other input that is itself invisible (opacity 0, pushed off, 1 px)
//   but has a visible <label>: the label's box stands for it, with the input's name, role and states
//   (`why: 'label-for-hidden-input'`).
// - an element with a `click` listener registered on itself (DOMDebugger.getEventListeners, depth
//   0; an onclick attribute or property counts), when it is not inside a leaf above. Left out: html
//   and body, and a listener element that holds other truth elements and covers more than half the
//   screen (a delegating app root). Listeners delegated to an ancestor (jQuery's `.on(type,
//   selector)`, React's and Ember's root listeners, zepto's tap) cannot be told from the element
//   and are not detected; nor are touch, pointer or mouse-down listeners (scrollers and swipers
//   use them as much as buttons do).
// Visible: rendered (checkVisibility with opacity, visibility and content-visibility), at least 2 x 2
// CSS px, and some part of it inside both its clipping ancestors (overflow other than visible,
// measured at their border boxes, following absolute and fixed positioning to their containing
// blocks) and the visual viewport. Not in: iframes' contents, closed shadow roots, canvas content.
//
// Coordinates: `layout` and `visible` are CSS px of the layout viewport (what getBoundingClientRect
// and elementFromPoint use); `screen` is the visible part in screen points, the visual viewport's
// coordinates (what a tap uses): screen = (layout - visual viewport offset) x page scale x zoom. A
// page without a viewport meta tag is laid out 980 px wide and shown at 393/980: its layout and
// screen boxes differ by that factor.
import type { CDPSession, Page } from 'playwright-core';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TruthStates {
  checked?: 'true' | 'false' | 'mixed';
  pressed?: 'true' | 'false' | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  readonly?: boolean;
  focused?: boolean;
  /** The accessibility tree's value: a text box's text, a slider's number, a select's chosen option. */
  value?: string;
}

export interface TruthElement {
  index: number;
  backendNodeId: number;
  /** Lower-case tag of the element the box is of (the label's, for a label standing for an input). */
  tag: string;
  /** Chromium's role: button, link, textbox, checkbox, combobox, Date, … ('generic' for a bare click listener). */
  role: string;
  name: string;
  /** 'ax' when the accessibility tree names it, 'text' when it had no name and its text stands in. */
  nameFrom: 'ax' | 'text';
  why: 'role' | 'editable' | 'label-for-hidden-input' | 'click-listener';
  states: TruthStates;
  /** The whole box, layout viewport CSS px. */
  layout: Box;
  /** The part of it not clipped by ancestors nor outside the visual viewport, layout viewport CSS px. */
  visible: Box;
  /** `visible` in screen points. */
  screen: Box;
  /** Something else is on top at the centre of its visible part (elementFromPoint is neither it nor inside it). */
  covered: boolean;
  /** What is on top, when covered: `tag#id.class`. */
  topmost?: string;
}

export interface TruthViewport {
  /** Layout viewport size, CSS px (980 wide for a page without a viewport meta tag). */
  layoutWidth: number;
  layoutHeight: number;
  /** The visual viewport's offset in the layout viewport, its size (CSS px), page scale and zoom. */
  offsetX: number;
  offsetY: number;
  width: number;
  height: number;
  scale: number;
  zoom: number;
  /** The layout viewport's scroll position in the document. */
  scrollX: number;
  scrollY: number;
}

export interface Truth {
  viewport: TruthViewport;
  elements: TruthElement[];
  /** The truth element a tap at screen point (x, y) lands on now, asked of the page at call time (the innermost, when they nest). */
  hits: (x: number, y: number) => Promise<TruthElement | undefined>;
  /** Lets go of the page's objects and the CDP session. */
  close: () => Promise<void>;
}

interface AXValue {
  type: string;
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
  backendDOMNodeId?: number;
}

/** Roles whose nodes are truth elements. */
const INTERACTIVE = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'spinbutton',
  'slider',
  'checkbox',
  'radio',
  'switch',
  'combobox',
  'listbox',
  'option',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
  'Date',
  'DateTime',
  'InputTime',
  'ColorWell',
  'DisclosureTriangle',
  'PopUpButton',
  'ToggleButton',
]);
/** Interactive roles whose insides are not separately interactive. */
const LEAF = new Set([...INTERACTIVE].filter((r) => !['listbox', 'treeitem'].includes(r)));

const GROUP = 'field-truth';

const prop = (n: AXNode, name: string) => n.properties?.find((p) => p.name === name)?.value.value;

function statesOf(n: AXNode | undefined): TruthStates {
  if (!n) return {};
  const s: TruthStates = {};
  const tri = (v: unknown) => (v === undefined ? undefined : (String(v) as 'true' | 'false' | 'mixed'));
  const bool = (v: unknown) => (v === undefined ? undefined : v === true || v === 'true');
  s.checked = tri(prop(n, 'checked'));
  s.pressed = tri(prop(n, 'pressed'));
  s.selected = bool(prop(n, 'selected'));
  s.expanded = bool(prop(n, 'expanded'));
  s.disabled = bool(prop(n, 'disabled'));
  s.readonly = bool(prop(n, 'readonly'));
  s.focused = bool(prop(n, 'focused'));
  if (n.value?.value !== undefined && n.value.value !== '') s.value = String(n.value.value);
  for (const k of Object.keys(s) as (keyof TruthStates)[]) if (s[k] === undefined) delete s[k];
  return s;
}

interface Measured {
  tag: string;
  why: TruthElement['why'];
  layout: Box;
  visible: Box;
  covered: boolean;
  topmost?: string;
  text: string;
  area: number;
}

/**
 * Runs in the page with `this` = the candidates. For each: its visible part (null when none), the
 * label standing for an invisible input, and whether elementFromPoint at the visible centre hits it.
 */
function measureInPage(this: Element[], vv: { x: number; y: number; w: number; h: number }, whys: string[]): (Measured | null)[] {
  type R = { x: number; y: number; w: number; h: number };
  const parentOf = (n: Element): Element | null => {
    const p = n.parentNode;
    if (p instanceof ShadowRoot) return p.host;
    return p instanceof Element ? p : null;
  };
  const inter = (a: R, b: R): R => {
    const x = Math.max(a.x, b.x);
    const y = Math.max(a.y, b.y);
    return { x, y, w: Math.min(a.x + a.w, b.x + b.w) - x, h: Math.min(a.y + a.h, b.y + b.h) - y };
  };
  // Geometry only: rendered, big enough, not clipped away. Opacity is judged by the caller: a
  // transparent control on top of a styled one (a select over its button) is still what a tap hits.
  const visibleOf = (e: Element): R | null => {
    if (!e.isConnected || !e.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) return null;
    const b = e.getBoundingClientRect();
    if (b.width < 2 || b.height < 2) return null;
    const own = getComputedStyle(e);
    if (/^rect\((0|1)px,? (0|1)px,? (0|1)px,? (0|1)px\)$/.test(own.clip) || own.clipPath === 'inset(50%)') return null;
    let r: R = { x: b.x, y: b.y, w: b.width, h: b.height };
    let mode = own.position;
    for (let p = parentOf(e); p && p !== document.documentElement && p !== document.body; p = parentOf(p)) {
      const cs = getComputedStyle(p);
      const transformed = cs.transform !== 'none' || cs.filter !== 'none' || cs.perspective !== 'none' || /paint|layout|strict|content/.test(cs.contain);
      if (mode === 'fixed' && !transformed) continue;
      if (mode === 'absolute' && !transformed && cs.position === 'static') continue;
      const clipX = cs.overflowX !== 'visible';
      const clipY = cs.overflowY !== 'visible';
      if (clipX || clipY) {
        const pb = p.getBoundingClientRect();
        r = inter(r, { x: clipX ? pb.x : -1e9, y: clipY ? pb.y : -1e9, w: clipX ? pb.width : 2e9, h: clipY ? pb.height : 2e9 });
        if (r.w < 1 || r.h < 1) return null;
      }
      mode = cs.position;
    }
    r = inter(r, vv);
    return r.w >= 1 && r.h >= 1 ? r : null;
  };
  const deepHit = (x: number, y: number): Element | null => {
    let el = document.elementFromPoint(x, y);
    while (el?.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  const within = (outer: Element, n: Element | null) => {
    for (let c: Element | null = n; c; c = parentOf(c)) if (c === outer) return true;
    return false;
  };
  const describe = (e: Element | null) =>
    e
      ? `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${[...e.classList]
          .slice(0, 2)
          .map((c) => `.${c}`)
          .join('')}`
      : 'nothing';
  const opaque = (e: Element) => e.checkVisibility({ opacityProperty: true });
  const centreHit = (v: R) => deepHit(v.x + v.w / 2, v.y + v.h / 2);
  return this.map((el, i) => {
    let target = el;
    let why = whys[i] as Measured['why'];
    const labels = [...((el as HTMLInputElement).labels ?? [])];
    // A label's own click listener is its control's: the control stands for both.
    if (why === 'click-listener' && el instanceof HTMLLabelElement && el.control && this.includes(el.control)) return null;
    let vis = visibleOf(el);
    // Shown: opaque, or transparent but on top at its centre (or under one of its own labels).
    if (vis && !opaque(el)) {
      const hit = centreHit(vis);
      if (!within(el, hit) && !labels.some((l) => within(l, hit))) vis = null;
    }
    if (!vis) {
      for (const label of labels) {
        const v = visibleOf(label);
        if (v && opaque(label)) {
          target = label;
          vis = v;
          why = 'label-for-hidden-input';
          break;
        }
      }
    }
    if (!vis) return null;
    const b = target.getBoundingClientRect();
    const hit = centreHit(vis);
    // A tap that lands on one of the control's labels reaches the control.
    const inside = within(target, hit) || within(el, hit) || labels.some((l) => within(l, hit));
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text, as a person reads it, not hidden nodes' text
    const text = ((target as HTMLElement).innerText ?? target.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);
    return {
      tag: target.tagName.toLowerCase(),
      why,
      layout: { x: b.x, y: b.y, width: b.width, height: b.height },
      visible: { x: vis.x, y: vis.y, width: vis.w, height: vis.h },
      covered: !inside,
      ...(inside ? {} : { topmost: describe(hit) }),
      text,
      area: vis.w * vis.h,
    };
  });
}

/** Every element of the document (open shadow roots too) that is on screen and not html or body. */
function onScreenElementsInPage(vv: { x: number; y: number; w: number; h: number }): Element[] {
  const out: Element[] = [];
  const walk = (root: Document | ShadowRoot) => {
    for (const e of root.querySelectorAll('*')) {
      if (e.shadowRoot) walk(e.shadowRoot);
      if (e === document.documentElement || e === document.body) continue;
      const b = e.getBoundingClientRect();
      if (b.width < 2 || b.height < 2 || b.right <= vv.x || b.bottom <= vv.y || b.left >= vv.x + vv.w || b.top >= vv.y + vv.h) continue;
      out.push(e);
    }
  };
  walk(document);
  return out;
}

/** Runs in the page with `this` = [elements, label-or-self targets]: the index of the innermost truth element at (x, y), or -1. */
function hitInPage(this: [Element[], (Element | null)[]], x: number, y: number): number {
  const [els, targets] = this;
  let el = document.elementFromPoint(x, y);
  while (el?.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  for (let n: Element | null = el; n; n = n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentElement) {
    const i = targets.indexOf(n);
    if (i >= 0) return i;
    const j = els.indexOf(n);
    if (j >= 0 && targets[j]) return j;
    // A label reaches its control.
    const k = n instanceof HTMLLabelElement && n.control ? els.indexOf(n.control) : -1;
    if (k >= 0 && targets[k]) return k;
  }
  return -1;
}

async function viewportOf(cdp: CDPSession): Promise<TruthViewport> {
  const m = await cdp.send('Page.getLayoutMetrics');
  const v = m.cssVisualViewport;
  return {
    layoutWidth: m.cssLayoutViewport.clientWidth,
    layoutHeight: m.cssLayoutViewport.clientHeight,
    offsetX: v.offsetX,
    offsetY: v.offsetY,
    width: v.clientWidth,
    height: v.clientHeight,
    scale: v.scale,
    zoom: v.zoom ?? 1,
    scrollX: m.cssLayoutViewport.pageX,
    scrollY: m.cssLayoutViewport.pageY,
  };
}

/** A page-side call's value; its exception, thrown here with what was being done. */
function pageValue(what: string, r: { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }): unknown {
  if (r.exceptionDetails) throw new Error(`truth: ${what} failed in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value;
}

/**
 * A page-side function as CDP takes it. Compilers that keep function names (esbuild's keepNames,
 * under tsx) wrap inner functions in `__name(...)`, which the page does not have.
 */
const inPage = (fn: (...args: any[]) => unknown) => `function (...args) { const __name = (f) => f; return (${fn.toString()}).apply(this, args); }`;

const round = (n: number) => Math.round(n * 100) / 100;
const toScreen = (b: Box, vp: TruthViewport): Box => {
  const k = vp.scale * vp.zoom;
  return { x: round((b.x - vp.offsetX) * k), y: round((b.y - vp.offsetY) * k), width: round(b.width * k), height: round(b.height * k) };
};
const rounded = (b: Box): Box => ({ x: round(b.x), y: round(b.y), width: round(b.width), height: round(b.height) });

/** Reads the truth of what `page` shows now. Call `close()` when done with it. */
export async function readTruth(page: Page): Promise<Truth> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const viewport = await viewportOf(cdp);
    const vv = { x: viewport.offsetX, y: viewport.offsetY, w: viewport.width, h: viewport.height };
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree', {})) as { nodes: AXNode[] };
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const byBackend = new Map<number, AXNode>();
    for (const n of nodes) if (!n.ignored && n.backendDOMNodeId !== undefined) byBackend.set(n.backendDOMNodeId, n);
    const roleOf = (n: AXNode) => String(n.role?.value ?? '');
    const isCandidate = (n: AXNode) =>
      !n.ignored && n.backendDOMNodeId !== undefined && (INTERACTIVE.has(roleOf(n)) || (prop(n, 'editable') !== undefined && prop(n, 'focusable') === true));
    const insideLeaf = (n: AXNode) => {
      for (let p = n.parentId ? byId.get(n.parentId) : undefined; p; p = p.parentId ? byId.get(p.parentId) : undefined) {
        if (!p.ignored && (LEAF.has(roleOf(p)) || (prop(p, 'editable') !== undefined && prop(p, 'focusable') === true))) return true;
      }
      return false;
    };
    const candidates: { backendNodeId: number; ax?: AXNode; why: TruthElement['why']; objectId: string }[] = [];
    for (const n of nodes) {
      if (!isCandidate(n) || insideLeaf(n)) continue;
      const r = await cdp.send('DOM.resolveNode', { backendNodeId: n.backendDOMNodeId!, objectGroup: GROUP }).catch(() => undefined);
      if (!r?.object.objectId) continue;
      candidates.push({ backendNodeId: n.backendDOMNodeId!, ax: n, why: INTERACTIVE.has(roleOf(n)) ? 'role' : 'editable', objectId: r.object.objectId });
    }

    // Elements with a click listener of their own, among those on screen.
    const onScreen = await cdp.send('Runtime.evaluate', {
      expression: `(${inPage(onScreenElementsInPage)}).call(null, ${JSON.stringify(vv)})`,
      objectGroup: GROUP,
    });
    pageValue('listing elements on screen', onScreen);
    const listed = onScreen.result.objectId
      ? (await cdp.send('Runtime.getProperties', { objectId: onScreen.result.objectId, ownProperties: true })).result
      : [];
    const known = new Set(candidates.map((c) => c.backendNodeId));
    const leafIds = candidates.filter((c) => c.ax && LEAF.has(roleOf(c.ax))).map((c) => c.objectId);
    const listenerIds: { objectId: string; backendNodeId: number }[] = [];
    for (const p of listed) {
      const objectId = p.value?.objectId;
      if (!objectId || !/^\d+$/.test(p.name)) continue;
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId, depth: 0 });
      if (!listeners.some((l) => l.type === 'click')) continue;
      const { node } = await cdp.send('DOM.describeNode', { objectId });
      if (known.has(node.backendNodeId)) continue;
      listenerIds.push({ objectId, backendNodeId: node.backendNodeId });
    }
    // A listener element inside a leaf truth element (a span in a button) is that element's part.
    if (listenerIds.length && leafIds.length) {
      const inLeaf = await cdp.send('Runtime.callFunctionOn', {
        objectId: listenerIds[0]!.objectId,
        functionDeclaration: `function (...all) { const leaves = all.slice(${listenerIds.length}); return all.slice(0, ${listenerIds.length}).map((e) => leaves.some((l) => l !== e && l.contains(e))); }`,
        arguments: [...listenerIds.map((l) => l.objectId), ...leafIds].map((objectId) => ({ objectId })),
        returnByValue: true,
      });
      const flags = pageValue('checking listeners inside controls', inLeaf) as boolean[];
      for (const [i, l] of listenerIds.entries())
        if (!flags[i]) candidates.push({ backendNodeId: l.backendNodeId, ax: byBackend.get(l.backendNodeId), why: 'click-listener', objectId: l.objectId });
    } else {
      for (const l of listenerIds)
        candidates.push({ backendNodeId: l.backendNodeId, ax: byBackend.get(l.backendNodeId), why: 'click-listener', objectId: l.objectId });
    }

    const empty: Truth = { viewport, elements: [], hits: async () => undefined, close: () => release(cdp) };
    if (!candidates.length) return empty;
    const arr = await cdp.send('Runtime.callFunctionOn', {
      objectId: candidates[0]!.objectId,
      functionDeclaration: 'function (...els) { return els; }',
      arguments: candidates.map((c) => ({ objectId: c.objectId })),
      objectGroup: GROUP,
    });
    pageValue('holding the candidates', arr);
    const arrayId = arr.result.objectId!;
    const measured = pageValue(
      'measuring',
      await cdp.send('Runtime.callFunctionOn', {
        objectId: arrayId,
        functionDeclaration: inPage(measureInPage),
        arguments: [{ value: vv }, { value: candidates.map((c) => c.why) }],
        returnByValue: true,
      }),
    ) as (Measured | null)[];

    // Drop a delegating container: a listener element over half the screen that holds other truth elements.
    const screenArea = vv.w * vv.h;
    const big = candidates.map((c, i) => c.why === 'click-listener' && (measured[i]?.area ?? 0) > screenArea / 2);
    if (big.some(Boolean)) {
      const holds = pageValue(
        'finding delegating containers',
        await cdp.send('Runtime.callFunctionOn', {
          objectId: arrayId,
          functionDeclaration: `function (big, shown) { return this.map((e, i) => big[i] && this.some((o, j) => j !== i && shown[j] && e.contains(o))); }`,
          arguments: [{ value: big }, { value: measured.map((m) => m !== null) }],
          returnByValue: true,
        }),
      ) as boolean[];
      holds.forEach((h, i) => {
        if (h) measured[i] = null;
      });
    }

    const elements: TruthElement[] = [];
    const indexOf = new Map<number, number>();
    candidates.forEach((c, i) => {
      const m = measured[i];
      if (!m) return;
      const axName = String(c.ax?.name?.value ?? '').trim();
      indexOf.set(i, elements.length);
      elements.push({
        index: elements.length,
        backendNodeId: c.backendNodeId,
        tag: m.tag,
        role: c.ax ? roleOf(c.ax) : 'generic',
        name: axName || m.text,
        nameFrom: axName ? 'ax' : 'text',
        why: m.why,
        states: statesOf(c.ax),
        layout: rounded(m.layout),
        visible: rounded(m.visible),
        screen: toScreen(m.visible, viewport),
        covered: m.covered,
        ...(m.topmost ? { topmost: m.topmost } : {}),
      });
    });

    // For hits(): the page keeps [elements, targets] (a target: the element, or the label standing for it; null if not shown).
    const pair = await cdp.send('Runtime.callFunctionOn', {
      objectId: arrayId,
      functionDeclaration: `function (shown, labelled) { return [this, this.map((e, i) => !shown[i] ? null : labelled[i] ? [...e.labels].find((l) => l.checkVisibility({ opacityProperty: true, visibilityProperty: true })) ?? e : e)]; }`,
      arguments: [{ value: measured.map((m) => m !== null) }, { value: measured.map((m) => m?.why === 'label-for-hidden-input') }],
      objectGroup: GROUP,
    });
    pageValue('holding the targets', pair);
    const pairId = pair.result.objectId!;
    return {
      viewport,
      elements,
      hits: async (x, y) => {
        const vp = await viewportOf(cdp);
        const k = vp.scale * vp.zoom;
        const r = await cdp.send('Runtime.callFunctionOn', {
          objectId: pairId,
          functionDeclaration: inPage(hitInPage),
          arguments: [{ value: x / k + vp.offsetX }, { value: y / k + vp.offsetY }],
          returnByValue: true,
        });
        const i = pageValue('hit-testing', r) as number;
        const at = indexOf.get(i);
        return at === undefined ? undefined : elements[at];
      },
      close: () => release(cdp),
    };
  } catch (err) {
    await release(cdp);
    throw err;
  }
}

async function release(cdp: CDPSession): Promise<void> {
  await cdp.send('Runtime.releaseObjectGroup', { objectGroup: GROUP }).catch(() => {});
  await cdp.detach().catch(() => {});
}

/** One line per element, for logs: `button "Save" [checked=true] @ (12,40 80x44) covered by div.mask`. */
export function truthLine(e: TruthElement): string {
  const st = Object.entries(e.states)
    .filter(([k]) => k !== 'focused')
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const s = e.screen;
  return `${e.role} ${JSON.stringify(e.name)}${st ? ` [${st}]` : ''} @ (${Math.round(s.x)},${Math.round(s.y)} ${Math.round(s.width)}x${Math.round(s.height)})${e.why === 'role' ? '' : ` (${e.why})`}${e.covered ? ` covered by ${e.topmost}` : ''}`;
}
