// Android uiautomator dumps and Appium (UiAutomator2) page source: one format, two spellings.
// `uiautomator dump` writes every element as <node class="android.widget.Button" …>; Appium names
// the element after its class and adds displayed=. Bounds are pixels and the model is in points
// (dp), so everything is divided by the screen density, which the dump itself never states.
import type { Rect, ScreenSize, TreeSnapshot } from '../../devices/backend.js';
import { type Candidate, DumpError, TreeBuilder, type XmlElement, clean, orNull, round, states } from './roles.js';

/** The densities Android ships (mdpi … xxxhdpi, with the 420 and 440 dpi of most Pixels). */
const DENSITIES = [1, 1.5, 2, 2.625, 2.75, 3, 3.5, 4];
// The width phones are laid out at. 411 dp, not a round 400: it is the width of the reference
// Pixels and of the emulator's default devices, and 400 would read a 1080 px screen as 2.75
// (393 dp) where the common case is 2.625 (411 dp). 1440 px comes out 3.5, 720 px 2.
const PHONE_WIDTH_DP = 411;
const LANDSCAPE_WIDTH_DP = 800;

/** Class names (last segment, see baseName) whose role does not depend on the element's flags. */
const CLASS_ROLE: Record<string, string> = {
  Button: 'button',
  ImageButton: 'button',
  TextView: 'text',
  Switch: 'switch',
  SwitchCompat: 'switch',
  SwitchMaterial: 'switch',
  ToggleButton: 'switch',
  CheckBox: 'checkbox',
  RadioButton: 'radio',
  SeekBar: 'slider',
  Spinner: 'select',
  ProgressBar: 'progress',
  RecyclerView: 'list',
  ListView: 'list',
  GridView: 'list',
  ScrollView: 'scroll',
  NestedScrollView: 'scroll',
  HorizontalScrollView: 'scroll',
  ViewPager: 'scroll',
  ViewPager2: 'scroll',
  WebView: 'webview',
  TabWidget: 'tabbar',
  TabLayout: 'tabbar',
  BottomNavigationView: 'tabbar',
  BottomNavigationMenuView: 'tabbar',
  NavigationBarView: 'tabbar',
  NavigationBarMenuView: 'tabbar',
  NavigationRailView: 'tabbar',
  Toolbar: 'toolbar',
  AppBarLayout: 'toolbar',
};

/**
 * Bars that a generic container class hides (a ViewGroup, a FrameLayout), known by the resource id
 * the platform's templates and libraries give them: toolbar, action_bar, app_bar; nav_view,
 * bottom_navigation, tab_layout.
 */
const ID_ROLE: [RegExp, string][] = [
  [/(^|_)(toolbar|action_?bar|app_?bar|top_?app_?bar|title_?bar)$/i, 'toolbar'],
  [/(^|_)(nav_?view|bottom_?nav(igation)?(_?view|_?bar)?|navigation_?(view|bar|rail)|tab_?(layout|bar|host)|tabs)$/i, 'tabbar'],
];

const TEXT_FIELDS = new Set(['EditText', 'AutoCompleteTextView', 'MultiAutoCompleteTextView']);

export function readAndroid(root: XmlElement, density: number | undefined, notes: string[]): Omit<TreeSnapshot, 'durationMs'> {
  const px = screenPixels(root, notes);
  const d = density ?? inferDensity(px, notes);
  const screen: ScreenSize = { widthPt: round(px.width / d), heightPt: round(px.height / d), scale: d };
  const builder = new TreeBuilder('uiautomator', screen);
  const seen = { obfuscated: 0 };
  const app = appPackage(root);
  const visit = (el: XmlElement, parent: number | null): void => {
    const c = candidate(el, d, builder.roleOf(parent), seen);
    if (app && el.attrs.package === SYSTEM_UI) c.system = true;
    const here = builder.add(c, parent);
    for (const child of el.children) visit(child, here);
  };
  for (const el of root.children) visit(el, null);
  if (root.children.length === 0) notes.push('the dump holds no elements');
  notes.push(...builder.notes());
  if (seen.obfuscated > 0) notes.push(`${seen.obfuscated} obfuscated resource-ids (…_resource_name_obfuscated) read as no id`);
  return builder.snapshot();
}

const SYSTEM_UI = 'com.android.systemui';

/** The package most of the dump's nodes belong to, other than the system UI; null for a dump of the system UI alone. */
function appPackage(root: XmlElement): string | null {
  const counts = new Map<string, number>();
  const walk = (el: XmlElement): void => {
    const p = el.attrs.package;
    if (p && p !== SYSTEM_UI) counts.set(p, (counts.get(p) ?? 0) + 1);
    el.children.forEach(walk);
  };
  root.children.forEach(walk);
  return [...counts].sort((x, y) => y[1] - x[1])[0]?.[0] ?? null;
}

// Google's apps ship with resource names stripped: every such element reports the same
// placeholder, which identifies nothing.
const OBFUSCATED = /^\d*_?resource_name_obfuscated$/;

function idOf(rid: string, seen: { obfuscated: number }): string | null {
  const at = rid.indexOf(':id/');
  const id = at >= 0 ? rid.slice(at + 4) : rid;
  if (OBFUSCATED.test(id)) {
    seen.obfuscated++;
    return null;
  }
  return orNull(id);
}

function candidate(el: XmlElement, density: number, parentRole: string | undefined, seen: { obfuscated: number }): Candidate {
  const a = el.attrs;
  const flag = (k: string): boolean => a[k] === 'true';
  const clickable = flag('clickable');
  const checkable = flag('checkable');
  const id = idOf(clean(a['resource-id']), seen);
  const classRole = roleOf(a.class || (el.tag === 'node' ? '' : el.tag), clickable, checkable, flag('password'), parentRole);
  const role = classRole === 'group' && id ? (ID_ROLE.find(([re]) => re.test(id))?.[1] ?? classRole) : classRole;
  const field = role === 'textfield' || role === 'securefield';
  const text = clean(a.text);
  const desc = clean(a['content-desc']);
  const hint = clean(a.hint);
  const b = bounds(a.bounds);
  return {
    role,
    // A field's text is what was typed; what it is for is its description or hint.
    label: field ? desc || hint : text || desc,
    // Before Android 8 an empty field reports its hint as its text: that is not a value.
    value: field && text !== hint ? orNull(text) : null,
    states: states({ checked: checkable && flag('checked'), selected: flag('selected'), disabled: a.enabled === 'false', focused: flag('focused') }),
    frame: b ? { x: b.x / density, y: b.y / density, width: b.width / density, height: b.height / density } : null,
    id,
    interactive: clickable || checkable || flag('long-clickable') || field,
    hidden: a.displayed === 'false' || a.visible === 'false',
    scrollable: flag('scrollable'),
  };
}

function roleOf(cls: string, clickable: boolean, checkable: boolean, password: boolean, parentRole: string | undefined): string {
  const name = baseName(cls);
  if (name === 'CheckedTextView') return checkable ? 'checkbox' : 'text';
  if (TEXT_FIELDS.has(name)) return password ? 'securefield' : 'textfield';
  if (name === 'ImageView') return clickable ? 'button' : 'image';
  const known = Object.hasOwn(CLASS_ROLE, name) ? CLASS_ROLE[name] : undefined;
  if (known) return known;
  // ActionBarContainer, ActionBarView…; ActionBarOverlayLayout is the whole window's decor, not a bar.
  if (name.startsWith('ActionBar') && name !== 'ActionBarOverlayLayout') return 'toolbar';
  // A class we cannot name (a custom row, a card) is known by what it does and where it sits.
  if (clickable) return parentRole === 'list' ? 'cell' : parentRole === 'tabbar' ? 'tab' : 'button';
  return 'group';
}

/**
 * The class's own name, so library variants map like the platform widget: androidx.…RecyclerView
 * and android.support.v7.…RecyclerView are RecyclerView, TabLayout$TabView is TabView, and the
 * AppCompat/Material/TextInput subclasses (AppCompatTextView, MaterialButton, TextInputEditText)
 * are the widget they extend.
 */
function baseName(cls: string): string {
  const last = cls.slice(Math.max(cls.lastIndexOf('.'), cls.lastIndexOf('$')) + 1);
  return last.replace(/^(AppCompat|Material|TextInput)(?=[A-Z])/, '');
}

/** "[x1,y1][x2,y2]" in pixels. */
function bounds(s: string | undefined): Rect | undefined {
  const m = /^\[(-?[\d.]+),(-?[\d.]+)\]\[(-?[\d.]+),(-?[\d.]+)\]$/.exec(s?.trim() ?? '');
  if (!m) return undefined;
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  if (![x1, y1, x2, y2].every(Number.isFinite)) return undefined;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/** From <hierarchy width height> (Appium); a raw `uiautomator dump` gives none, so the elements' extent. */
function screenPixels(root: XmlElement, notes: string[]): { width: number; height: number } {
  const width = Number(root.attrs.width);
  const height = Number(root.attrs.height);
  if (width > 0 && height > 0) return { width, height };
  let right = 0;
  let bottom = 0;
  const walk = (el: XmlElement): void => {
    const b = bounds(el.attrs.bounds);
    if (b) {
      right = Math.max(right, b.x + b.width);
      bottom = Math.max(bottom, b.y + b.height);
    }
    el.children.forEach(walk);
  };
  root.children.forEach(walk);
  if (right <= 0 || bottom <= 0) {
    throw new DumpError(
      'UNREADABLE',
      "expected the screen size in <hierarchy width= height=> or in the elements' bounds, found neither",
      'save the dump again with the screen on; an Appium page source states the size',
    );
  }
  notes.push(`screen size not given by <hierarchy>; ${right}x${bottom} px taken from the elements' bounds (a dialog alone may be smaller than the screen)`);
  return { width: right, height: bottom };
}

function inferDensity(px: { width: number; height: number }, notes: string[]): number {
  const landscape = px.width >= px.height;
  const target = landscape ? LANDSCAPE_WIDTH_DP : PHONE_WIDTH_DP;
  let best = DENSITIES[0]!;
  for (const d of DENSITIES) if (Math.abs(px.width / d - target) < Math.abs(px.width / best - target)) best = d;
  notes.push(`density not given; ${best} inferred from a ${px.width} px wide ${landscape ? 'landscape ' : ''}screen`);
  return best;
}
