// iOS accessibility as JSON: idb `ui describe-all` (a flat array, one entry per element) and AXe
// `describe-ui` (the same entries nested in `children`). Both read the simulator's accessibility
// through the same private API, so the keys are the same; frames are points.
import type { Rect, TreeSnapshot } from '../../devices/backend.js';
import { type Candidate, DumpError, IOS_INTERACTIVE, Tally, TreeBuilder, clean, iosRole, iosValue, orNull, round, states } from './roles.js';

export type JsonElement = Record<string, unknown>;

/** AX role names (without the AX) that differ from the element type names, for entries without `type`. */
const AX_ROLE: Record<string, string> = {
  ScrollArea: 'scroll',
  TextArea: 'textfield',
  Row: 'cell',
  List: 'list',
  WebArea: 'webview',
  BusyIndicator: 'progress',
};

export function readAxJson(top: JsonElement[], source: 'idb' | 'axe', notes: string[]): Omit<TreeSnapshot, 'durationMs'> {
  const seen = { fromAXFrame: 0, fromRole: 0 };
  const unknown = new Tally();
  const builder = new TreeBuilder(source, screenOf(top, notes));
  const visit = (el: JsonElement, parent: number | null): void => {
    const here = builder.add(candidate(el, seen, unknown), parent);
    for (const child of childrenOf(el)) visit(child, here);
  };
  for (const el of top) visit(el, null);
  notes.push(...builder.notes());
  if (seen.fromRole > 0) notes.push(`${seen.fromRole} ${seen.fromRole === 1 ? 'element' : 'elements'} without type: role read from the AX role`);
  if (seen.fromAXFrame > 0)
    notes.push(`${seen.fromAXFrame} ${seen.fromAXFrame === 1 ? 'element' : 'elements'} without a frame object: frame read from the AXFrame string`);
  if (unknown.total > 0) notes.push(`element types outside the vocabulary read as other: ${unknown}`);
  return builder.snapshot();
}

export function childrenOf(el: JsonElement): JsonElement[] {
  return Array.isArray(el.children) ? el.children.filter(isElement) : [];
}

export const isElement = (v: unknown): v is JsonElement => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(el: JsonElement, seen?: { fromRole: number }): string {
  if (typeof el.type === 'string' && el.type !== '') return el.type;
  if (seen) seen.fromRole++;
  return typeof el.role === 'string' ? el.role.replace(/^AX/, '') : '';
}

function candidate(el: JsonElement, seen: { fromAXFrame: number; fromRole: number }, unknown: Tally): Candidate {
  const type = typeOf(el, seen);
  const axRole = typeof el.role === 'string' ? el.role.replace(/^AX/, '') : '';
  let role = iosRole(type) ?? iosRole(axRole) ?? (Object.hasOwn(AX_ROLE, axRole) ? AX_ROLE[axRole] : undefined);
  if (role === undefined) {
    unknown.add(type || '(none)');
    role = 'other';
  }
  // A navigation bar's search field can come as a GenericElement whose subrole alone says what it is.
  if (el.subrole === 'AXSearchField' && (role === 'other' || role === 'group')) role = 'textfield';
  const read = searchField(el, clean(el.AXLabel) || clean(el.title), clean(typeof el.AXValue === 'number' ? String(el.AXValue) : el.AXValue));
  const { label } = read;
  const { value, checked } = iosValue(role, read.raw, label, el.selected === true);
  return {
    role,
    label,
    value,
    states: states({ checked, selected: el.selected === true, disabled: el.enabled === false, focused: el.focused === true }),
    frame: frameOf(el, seen),
    id: orNull(clean(el.AXUniqueId)),
    interactive: IOS_INTERACTIVE.has(role),
    hidden: false,
  };
}

/**
 * The system's own placeholders of an empty UISearchTextField (English and the most common
 * localisations). An empty search field has no label and reports its placeholder as its value
 * (idb on iOS 17/18, AXe 1.8 on iOS 18.5), so "Search" there is a name, not typed text.
 */
const SEARCH_PLACEHOLDERS = new Set([
  'Search',
  'Buscar',
  'Rechercher',
  'Suchen',
  'Cerca',
  'Pesquisar',
  'Zoeken',
  'Sök',
  'Søg',
  'Поиск',
  '検索',
  '搜索',
  '검색',
]);

/**
 * Label and value of a search field (subrole AXSearchField) that has no label: a system placeholder
 * or one that starts with "Search " ("Search Settings") is the field's name and it holds no text;
 * anything else is text typed into a field named "Search". Typed text that looks like a
 * placeholder cannot be told from one: the JSON has no placeholder key.
 */
function searchField(el: JsonElement, label: string, raw: string): { label: string; raw: string } {
  if (el.subrole !== 'AXSearchField' || label !== '') return { label, raw };
  if (raw === '' || SEARCH_PLACEHOLDERS.has(raw) || /^Search\s/.test(raw)) return { label: raw || 'Search', raw: '' };
  return { label: 'Search', raw };
}

const NUM = String.raw`\s*(-?[\d.]+(?:e-?\d+)?)\s*`;
const AX_FRAME = new RegExp(String.raw`^\{\{${NUM},${NUM}\},\s*\{${NUM},${NUM}\}\}$`, 'i');

/** The `frame` object; entries without one still carry AXFrame, "{{x, y}, {w, h}}". */
function frameOf(el: JsonElement, seen?: { fromAXFrame: number }): Rect | null {
  const f = el.frame;
  if (isElement(f)) {
    const { x, y, width, height } = f;
    if ([x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n))) return { x, y, width, height } as Rect;
  }
  const m = typeof el.AXFrame === 'string' ? AX_FRAME.exec(el.AXFrame.trim()) : null;
  if (!m) return null;
  const [x, y, width, height] = m.slice(1).map(Number) as [number, number, number, number];
  if (![x, y, width, height].every(Number.isFinite)) return null;
  if (seen) seen.fromAXFrame++;
  return { x, y, width, height };
}

/** The Application element's frame is the screen; without one, the first element's. */
function screenOf(top: JsonElement[], notes: string[]) {
  const find = (els: JsonElement[]): JsonElement | undefined => {
    for (const el of els) {
      if (typeOf(el) === 'Application') return el;
      const deeper = find(childrenOf(el));
      if (deeper) return deeper;
    }
    return undefined;
  };
  let el = find(top);
  if (!el) {
    el = top[0];
    if (el) notes.push(`no Application element; screen taken from the first element (${typeOf(el) || 'no type'})`);
  }
  const f = el && frameOf(el);
  if (!el || !f || !(f.width > 0 && f.height > 0)) {
    throw new DumpError(
      'UNREADABLE',
      `expected the screen size in the Application element's frame, found ${el ? 'an element without a usable frame' : 'no elements'}`,
      'describe the screen again with the app in the foreground',
    );
  }
  notes.push('pixel scale unknown (dumps give points only)');
  return { widthPt: round(f.width), heightPt: round(f.height), scale: 0 };
}
