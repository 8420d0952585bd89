// The ground every dump source shares, so that an Android dump, an XCUITest page source and an
// idb/AXe description come out as the same kind of node: the iOS role vocabulary (XCUITest XML and
// idb/AXe JSON name the same UIKit element types), the rules that decide which elements become
// nodes, and the error a dump that cannot be read raises. Android's class names map in
// android-xml.ts, the only place that sees them.
import type { NodeSource, NodeStates, Rect, ScreenSize, TreeNode, TreeSnapshot } from '../../devices/backend.js';

/** A dump that cannot be read: `message` says what was expected and what was found; `hint`, what to do. */
export class DumpError extends Error {
  override readonly name = 'DumpError';
  constructor(
    readonly code: 'UNKNOWN_FORMAT' | 'UNREADABLE',
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** An XML element with its attributes and child elements in document order (text dropped: dumps carry none). */
export interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: XmlElement[];
}

/** XCUIElementType names (without the prefix) and idb/AXe `type` values to the vocabulary. */
const IOS_ROLE: Record<string, string> = {
  Button: 'button',
  StaticText: 'text',
  Heading: 'heading',
  NavigationBar: 'navbar',
  TabBar: 'tabbar',
  Toolbar: 'toolbar',
  Cell: 'cell',
  Table: 'list',
  CollectionView: 'list',
  ScrollView: 'scroll',
  Switch: 'switch',
  TextField: 'textfield',
  SearchField: 'textfield',
  TextView: 'textfield',
  SecureTextField: 'securefield',
  Image: 'image',
  Icon: 'image',
  Link: 'link',
  Slider: 'slider',
  PickerWheel: 'select',
  Picker: 'select',
  Alert: 'alert',
  Sheet: 'dialog',
  Keyboard: 'keyboard',
  Key: 'key',
  ActivityIndicator: 'progress',
  ProgressIndicator: 'progress',
  WebView: 'webview',
  StatusBar: 'status',
  Window: 'window',
  Application: 'application',
  SegmentedControl: 'group',
  Other: 'group',
  Group: 'group',
  // Types the XCUIElementType enum also has that plainly belong to one role: SwiftUI toggles
  // (iOS 17+), Catalyst/macOS-style controls, tab buttons.
  Toggle: 'switch',
  CheckBox: 'checkbox',
  RadioButton: 'radio',
  Tab: 'tab',
  TabGroup: 'tabbar',
  MenuItem: 'menuitem',
  Dialog: 'dialog',
  PopUpButton: 'select',
  ComboBox: 'select',
  DatePicker: 'select',
  ToolbarButton: 'button',
  MenuButton: 'button',
};

/** The vocabulary's role for an iOS element type, or undefined when the type is not one we know. */
export function iosRole(type: string): string | undefined {
  return Object.hasOwn(IOS_ROLE, type) ? IOS_ROLE[type] : undefined;
}

/** iOS reports no clickable flag: what a finger can operate is known from the role alone. */
export const IOS_INTERACTIVE = new Set([
  'button',
  'link',
  'textfield',
  'securefield',
  'switch',
  'checkbox',
  'radio',
  'slider',
  'select',
  'tab',
  'cell',
  'key',
  'menuitem',
]);

/** Roles whose on/off state iOS reports as a value of "1" or "0". */
export const IOS_TOGGLES = new Set(['switch', 'checkbox', 'radio']);

/**
 * Layout with nothing of its own to say: dropped unless named, valued, identified or operable; its
 * children attach to the nearest kept ancestor. Every other role is kept even unnamed (a list, a
 * nav bar, a keyboard tells where things are), so there is no list of roles to keep.
 */
const CONTAINER_ONLY = new Set(['group', 'other', 'window', 'application']);

/** Trimmed, whitespace collapsed to single spaces; anything but a string reads as ''. */
export function clean(s: unknown): string {
  return typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '';
}

export const orNull = (s: string): string | null => (s === '' ? null : s);

/** Counts "3 × Foo" for a note, in a stable order (most frequent first, then by name). */
export class Tally {
  private readonly counts = new Map<string, number>();
  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
  toString(): string {
    return [...this.counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([k, c]) => `${k} (${c})`)
      .join(', ');
  }
}

/** What a source makes of one element before the shared rules decide whether it becomes a node. */
export interface Candidate {
  role: string;
  label: string;
  value: string | null;
  states: NodeStates;
  /** In points, unrounded; null when the dump gives none that can be read. */
  frame: Rect | null;
  id: string | null;
  interactive: boolean;
  /** The dump itself says the element is not shown (displayed="false", visible="false"). */
  hidden: boolean;
  /** The dump says its content scrolls (Android scrollable="true"). */
  scrollable?: boolean;
  /** Drawn by the system's own UI over the app (Android's status bar in a dump of every window). */
  system?: boolean;
}

/** Collects nodes in document order; each source walks its dump and offers every element. */
export class TreeBuilder {
  readonly nodes: TreeNode[] = [];
  private hidden = 0;
  private zeroSized = 0;
  private unframed = 0;

  constructor(
    private readonly source: NodeSource,
    private readonly screen: ScreenSize,
  ) {}

  /** The role of a kept node (the parent a child would attach to), for rules that look upwards. */
  roleOf(index: number | null): string | undefined {
    return index === null ? undefined : this.nodes[index]?.role;
  }

  /**
   * Offers one element whose nearest kept ancestor is `parent`; returns the index its children
   * attach to: its own when it became a node, else `parent`. Children are judged on their own
   * even when their parent is left out, as in the web normaliser.
   */
  add(c: Candidate, parent: number | null): number | null {
    if (c.hidden) {
      this.hidden++;
      return parent;
    }
    // Without a frame nobody can point at it or say where it is: left out like the invisible.
    if (c.frame === null) {
      this.unframed++;
      return parent;
    }
    if (!(c.frame.width > 0 && c.frame.height > 0)) {
      this.zeroSized++;
      return parent;
    }
    // A scrolling container is kept even unnamed: what it holds scrolls under the bars.
    const scrollable = c.scrollable === true || c.role === 'list' || c.role === 'scroll';
    if (CONTAINER_ONLY.has(c.role) && c.label === '' && c.value === null && c.id === null && !c.interactive && !scrollable) return parent;
    const frame: Rect = { x: round(c.frame.x), y: round(c.frame.y), width: round(c.frame.width), height: round(c.frame.height) };
    const { widthPt, heightPt } = this.screen;
    const index = this.nodes.length;
    this.nodes.push({
      index,
      parent,
      role: c.role,
      label: c.label,
      value: c.value,
      states: c.states,
      frame,
      id: c.id,
      source: this.source,
      interactive: c.interactive,
      unnamed: c.interactive && c.label === '',
      offscreen: frame.x + frame.width <= 0 || frame.y + frame.height <= 0 || frame.x >= widthPt || frame.y >= heightPt,
      ...(scrollable ? { scrollable: true } : {}),
      ...(c.system ? { system: true } : {}),
    });
    return index;
  }

  /** What was left out, for the dump's notes (nothing left out says nothing). */
  notes(): string[] {
    const out: string[] = [];
    if (this.hidden > 0) out.push(`${this.hidden} ${plural(this.hidden, 'node')} marked invisible left out`);
    if (this.zeroSized > 0) out.push(`${this.zeroSized} zero-sized ${plural(this.zeroSized, 'node')} left out`);
    if (this.unframed > 0) out.push(`${this.unframed} ${plural(this.unframed, 'node')} without a readable frame left out`);
    return out;
  }

  snapshot(): Omit<TreeSnapshot, 'durationMs'> {
    return { nodes: this.nodes, skippedInvisible: this.hidden + this.zeroSized + this.unframed, screen: this.screen };
  }
}

/** Only the states that hold: a false flag is left out, as the model's consumers expect. */
export function states(s: { checked?: boolean; selected?: boolean; disabled?: boolean; focused?: boolean }): NodeStates {
  const out: NodeStates = {};
  if (s.checked) out.checked = true;
  if (s.selected) out.selected = true;
  if (s.disabled) out.disabled = true;
  if (s.focused) out.focused = true;
  return out;
}

// `|| 0` so a tiny negative never shows as -0.
export const round = (n: number): number => Math.round(n * 10) / 10 || 0;

export const plural = (n: number, word: string): string => (n === 1 ? word : `${word}s`);

/**
 * An iOS element's value and toggle state, the same from XCUITest XML and idb/AXe JSON: a switch's
 * value is its state ("1"/"0"), not something to read out, and a value repeating the label is none.
 */
export function iosValue(role: string, raw: string, label: string, selected: boolean): { value: string | null; checked: boolean } {
  const toggle = IOS_TOGGLES.has(role);
  const state = toggle && (raw === '1' || raw === '0');
  return { value: state || raw === label ? null : orNull(raw), checked: toggle && (raw === '1' || selected) };
}
