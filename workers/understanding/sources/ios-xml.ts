// XCUITest page source, as Appium (wrapped in <AppiumAUT>) or WebDriverAgent's /source (the bare
// <XCUIElementTypeApplication>) write it. Frames are already points; the element type is the tag.
import type { Rect, TreeSnapshot } from '../../devices/backend.js';
import { type Candidate, DumpError, IOS_INTERACTIVE, Tally, TreeBuilder, type XmlElement, clean, iosRole, iosValue, round, states } from './roles.js';

export function readXcuitest(root: XmlElement, notes: string[]): Omit<TreeSnapshot, 'durationMs'> {
  const top = root.tag === 'AppiumAUT' ? root.children : [root];
  const unknown = new Tally();
  const builder = new TreeBuilder('xcuitest', screenOf(top, notes));
  const visit = (el: XmlElement, parent: number | null): void => {
    const here = builder.add(candidate(el, unknown), parent);
    for (const child of el.children) visit(child, here);
  };
  for (const el of top) visit(el, null);
  if (top.length === 0) notes.push('the dump holds no elements');
  notes.push(...builder.notes());
  if (unknown.total > 0) notes.push(`element types outside the vocabulary read as other: ${unknown}`);
  return builder.snapshot();
}

function typeOf(el: XmlElement): string {
  return (el.attrs.type || el.tag).replace(/^XCUIElementType/, '');
}

function candidate(el: XmlElement, unknown: Tally): Candidate {
  const a = el.attrs;
  const type = typeOf(el);
  let role = iosRole(type);
  if (role === undefined) {
    unknown.add(type);
    role = 'other';
  }
  const name = clean(a.name);
  const label = clean(a.label) || name;
  const raw = clean(a.value);
  const { value, checked } = iosValue(role, raw, label, a.selected === 'true');
  return {
    role,
    label,
    value,
    states: states({ checked, selected: a.selected === 'true', disabled: a.enabled === 'false', focused: a.focused === 'true' }),
    frame: frameOf(a),
    // XCUITest's name is the accessibilityIdentifier when one is set, else a copy of the label.
    id: name !== '' && name !== label ? name : null,
    interactive: IOS_INTERACTIVE.has(role),
    hidden: a.visible === 'false',
  };
}

function frameOf(a: Record<string, string>): Rect | null {
  const [x, y, width, height] = [a.x, a.y, a.width, a.height].map((v) => (v === undefined || v.trim() === '' ? NaN : Number(v)));
  return [x, y, width, height].every((n) => Number.isFinite(n)) ? { x: x!, y: y!, width: width!, height: height! } : null;
}

/** The Application element's frame is the screen; without one, the first element's. */
function screenOf(top: XmlElement[], notes: string[]) {
  const find = (els: XmlElement[]): XmlElement | undefined => {
    for (const el of els) {
      if (typeOf(el) === 'Application') return el;
      const deeper = find(el.children);
      if (deeper) return deeper;
    }
    return undefined;
  };
  let el = find(top);
  if (!el) {
    el = top[0];
    if (el) notes.push(`no Application element; screen taken from the first element, <${el.tag}>`);
  }
  const f = el && frameOf(el.attrs);
  if (!el || !f || !(f.width > 0 && f.height > 0)) {
    throw new DumpError(
      'UNREADABLE',
      `expected the screen size in the Application element's width= and height=, found ${el ? `<${el.tag}> without a usable size` : 'no elements'}`,
      'save the page source again with the app in the foreground',
    );
  }
  notes.push('pixel scale unknown (dumps give points only)');
  return { widthPt: round(f.width), heightPt: round(f.height), scale: 0 };
}
