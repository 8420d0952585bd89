// Dump normalisers against real dumps of real apps (the shared corpus: every file, none skipped)
// and against small hand-written fixtures for the shapes the corpus lacks (a raw `uiautomator
// dump`, a flat idb describe-all array), plus every way a dump can fail to be one.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TreeNode } from '../../workers/devices/backend.js';
import { DumpError, type DumpFormat, type ParsedDump, detectFormat, parseDump } from '../../workers/understanding/sources/index.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, CORPUS), 'utf8');

interface Labels {
  groups: Record<string, { platform: 'android' | 'ios'; files: string[] }>;
}
const labels = JSON.parse(read('labels.json')) as Labels;
const corpus = Object.values(labels.groups).flatMap((g) => g.files.map((file) => ({ file, platform: g.platform })));
const onDisk = ['android', 'ios'].flatMap((dir) => readdirSync(new URL(`${dir}/`, CORPUS)).map((f) => `${dir}/${f}`));

const VOCABULARY = new Set(
  'button link text heading textfield securefield switch checkbox radio slider select option menuitem tab tabbar navbar toolbar list cell image dialog alert keyboard key progress status header footer navigation canvas webview scroll group window application other'.split(
    ' ',
  ),
);
const SOURCE: Record<DumpFormat, string> = { 'uiautomator-xml': 'uiautomator', 'xcuitest-xml': 'xcuitest', 'idb-json': 'idb', 'axe-json': 'axe' };

function expectedFormat(file: string): DumpFormat {
  if (file.startsWith('android/')) return 'uiautomator-xml';
  return file.endsWith('.json') ? 'axe-json' : 'xcuitest-xml';
}

const parsed = new Map<string, ParsedDump>();
function dump(file: string): ParsedDump {
  let p = parsed.get(file);
  if (!p) parsed.set(file, (p = parseDump(read(file))));
  return p;
}
const byLabel = (p: ParsedDump, label: string): TreeNode[] => p.snapshot.nodes.filter((n) => n.label === label);

/** Every rule of the model that holds whatever the source. */
function expectWellFormed(p: ParsedDump): void {
  const { nodes, screen } = p.snapshot;
  nodes.forEach((n, i) => {
    expect(n.index).toBe(i);
    if (n.parent !== null) expect(n.parent).toBeGreaterThanOrEqual(0);
    if (n.parent !== null) expect(n.parent).toBeLessThan(i);
    expect(VOCABULARY.has(n.role), `role ${n.role}`).toBe(true);
    expect(n.source).toBe(SOURCE[p.format]);
    expect(n.label).toBe(n.label.replace(/\s+/g, ' ').trim());
    expect(n.value).not.toBe('');
    if (n.value !== null) expect(n.value).not.toBe(n.label);
    expect(n.unnamed).toBe(n.interactive && n.label === '');
    for (const v of Object.values(n.states)) expect(v).toBeTruthy();
    const { x, y, width, height } = n.frame;
    expect(width).toBeGreaterThan(0);
    expect(height).toBeGreaterThan(0);
    // Inside or around the screen: scroll content may reach past it, not to another screen.
    expect(x).toBeGreaterThanOrEqual(-screen.widthPt);
    expect(y).toBeGreaterThanOrEqual(-screen.heightPt);
    expect(x + width).toBeLessThanOrEqual(2 * screen.widthPt);
    expect(y + height).toBeLessThanOrEqual(2 * screen.heightPt);
    expect(n.offscreen).toBe(x + width <= 0 || y + height <= 0 || x >= screen.widthPt || y >= screen.heightPt);
    // A container with nothing to say is left out, its children attached to the nearest kept ancestor.
    if (['group', 'other', 'window', 'application'].includes(n.role)) expect(n.label !== '' || n.value !== null || n.id !== null || n.interactive).toBe(true);
  });
}

/** durationMs is wall time, the one field allowed to differ between two readings. */
const timeless = (p: ParsedDump) => ({ ...p, snapshot: { ...p.snapshot, durationMs: 0 } });

describe('the corpus', () => {
  it('is read whole: labels.json names every file on disk', () => {
    expect(corpus.map((c) => c.file).sort()).toEqual(onDisk.sort());
    expect(corpus).toHaveLength(18);
  });

  for (const { file, platform } of corpus) {
    it(`reads ${file}`, () => {
      const text = read(file);
      expect(detectFormat(text)).toBe(expectedFormat(file));
      const p = dump(file);
      expect(p.format).toBe(expectedFormat(file));
      expect(p.platform).toBe(platform);
      expect(p.snapshot.nodes.length).toBeGreaterThan(0);
      expect(p.snapshot.nodes.some((n) => !n.offscreen && n.label !== '')).toBe(true);
      expect(p.snapshot.durationMs).toBeGreaterThanOrEqual(0);
      expectWellFormed(p);
      if (platform === 'ios') {
        expect(p.snapshot.screen.scale).toBe(0);
        expect(p.notes).toContain('pixel scale unknown (dumps give points only)');
      }
    });
  }

  it('reads the same dump the same way twice', () => {
    for (const { file } of corpus) expect(timeless(parseDump(read(file)))).toEqual(timeless(parseDump(read(file))));
  });
});

describe('Android dumps in the corpus', () => {
  const android = corpus.filter((c) => c.platform === 'android').map((c) => c.file);

  it('come out ~411 pt wide from 1080 px, the density inferred and said so', () => {
    for (const file of android) {
      const p = dump(file);
      expect(p.snapshot.screen.widthPt).toBeCloseTo(411.4, 1);
      expect(p.snapshot.screen.scale).toBe(2.625);
      expect(p.notes).toContain('density not given; 2.625 inferred from a 1080 px wide screen');
    }
  });

  it('Settings top: the rows of its list are cells, "Network & internet" among their titles', () => {
    const p = dump('android/ldi-github-shirates-core__XmlDataAndroid.SettingsTopScreen.xml');
    const [title] = byLabel(p, 'Network & internet');
    expect(title).toMatchObject({ role: 'text', id: 'title', source: 'uiautomator' });
    const row = p.snapshot.nodes[title!.parent!]!;
    expect(row).toMatchObject({ role: 'cell', interactive: true });
    expect(p.snapshot.nodes[row.parent!]).toMatchObject({ role: 'list', id: 'recycler_view' });
    expect(byLabel(p, 'Profile picture, double tap to open Google Account')[0]).toMatchObject({ role: 'button', interactive: true, unnamed: false });
    expect(byLabel(p, 'Search settings')[0]).toMatchObject({ role: 'text', id: 'search_action_bar_title' });
  });

  it('the ANR dialog: its two buttons, in points, inside a screen larger than the dialog', () => {
    const p = dump('android/ldi-github-shirates-core__XmlDataAndroid.AppIsNotResponding.xml');
    expect(byLabel(p, "Settings isn't responding")[0]).toMatchObject({ role: 'text', id: 'alertTitle' });
    const close = byLabel(p, 'Close app')[0]!;
    // bounds="[72,1016][1008,1148]" at 2.625 px/pt.
    expect(close).toMatchObject({ role: 'button', id: 'aerr_close', interactive: true, frame: { x: 27.4, y: 387, width: 356.6, height: 50.3 } });
    expect(byLabel(p, 'Wait')[0]).toMatchObject({ role: 'button', id: 'aerr_wait' });
    expect(p.snapshot.screen.heightPt).toBeCloseTo(795.4, 1);
  });

  it('Date & time: switches carry their state, disabled rows say so', () => {
    const p = dump('android/ldi-github-shirates-core__XmlDataAndroid.DateAndTime_en.xml');
    const switches = p.snapshot.nodes.filter((n) => n.role === 'switch');
    expect(switches.length).toBe(4);
    expect(switches.filter((s) => s.states.checked).length).toBe(3);
    expect(switches.every((s) => s.interactive && s.id === 'switch_widget')).toBe(true);
    const date = byLabel(p, 'Date')[0]!;
    expect(date.states).toEqual({ disabled: true });
    expect(p.snapshot.nodes[date.parent!]).toMatchObject({ role: 'cell', states: { disabled: true } });
  });

  it('Date & time in two locales: the same screen, its rows known by the same ids', () => {
    const en = dump('android/ldi-github-shirates-core__XmlDataAndroid.DateAndTime_en.xml');
    const ja = dump('android/ldi-github-shirates-core__XmlDataAndroid.DateAndTime_ja.xml');
    expect(ja.snapshot.screen).toEqual(en.snapshot.screen);
    const ids = (p: ParsedDump) => new Set(p.snapshot.nodes.map((n) => n.id).filter((id) => id !== null));
    expect([...ids(ja)].filter((id) => !ids(en).has(id))).toEqual([]);
    expect(byLabel(ja, '日付と時刻')).not.toHaveLength(0);
  });

  it('Play Store: obfuscated resource ids are no ids, and that is said', () => {
    const p = dump('android/ldi-github-shirates-core__XmlDataAndroid.PlayStoreGamesScreen.xml');
    expect(p.snapshot.nodes.some((n) => n.id?.includes('obfuscated'))).toBe(false);
    expect(p.notes.some((n) => /^\d+ obfuscated resource-ids/.test(n))).toBe(true);
    expect(byLabel(p, 'Voice Search')[0]).toMatchObject({ role: 'button', interactive: true });
    expect(byLabel(p, 'For you')[0]).toMatchObject({ role: 'text', states: { selected: true } });
    // &#10; in the source is a line break; labels collapse it to a space.
    expect(p.snapshot.nodes.every((n) => !n.label.includes('\n'))).toBe(true);
  });

  it('Clock: the alarm list is a list of cells; the on/off switches have no name of their own', () => {
    const p = dump('android/ldi-github-shirates-core__XmlDataAndroid.clock_Alarm.xml');
    expect(p.snapshot.nodes.filter((n) => n.role === 'cell').map((n) => n.label)).toEqual(['Alarm', 'Alarm']);
    const onoff = p.snapshot.nodes.filter((n) => n.id === 'onoff');
    expect(onoff).toHaveLength(2);
    expect(onoff.every((n) => n.role === 'switch' && n.unnamed)).toBe(true);
    expect(byLabel(p, 'Add alarm')[0]).toMatchObject({ role: 'button', id: 'fab' });
  });
});

describe('iOS dumps in the corpus', () => {
  it('Settings top: a 390x844 pt screen, a list of cells, icons marked invisible left out', () => {
    const p = dump('ios/ldi-github-shirates-core__XmlDataIos.SettingsTopScreen.xml');
    expect(p.snapshot.screen).toEqual({ widthPt: 390, heightPt: 844, scale: 0 });
    expect(p.snapshot.nodes[0]).toMatchObject({ role: 'application', label: 'Settings', parent: null });
    expect(byLabel(p, 'Settings').map((n) => n.role)).toEqual(['application', 'navbar', 'text']);
    const cell = p.snapshot.nodes.find((n) => n.role === 'cell' && n.label === 'Sign in to your iPhone')!;
    expect(cell).toMatchObject({ value: 'Set up iCloud, the App Store, and more.', interactive: true });
    expect(p.snapshot.nodes[cell.parent!]!.role).toBe('list');
    // name="APPLE_ACCOUNT" label="Sign in to your iPhone": the name is the identifier.
    expect(p.snapshot.nodes.find((n) => n.role === 'text' && n.label === 'Sign in to your iPhone')).toMatchObject({ id: 'APPLE_ACCOUNT', value: null });
    expect(p.snapshot.skippedInvisible).toBe(38);
    expect(p.notes).toContain('38 nodes marked invisible left out');
    expect(p.snapshot.nodes.some((n) => n.role === 'window')).toBe(false);
  });

  it('Accessibility: a 375x667 pt screen', () => {
    expect(dump('ios/ldi-github-shirates-core__XmlDataIos.AccessibilityScreen.xml').snapshot.screen).toEqual({ widthPt: 375, heightPt: 667, scale: 0 });
  });

  it('Keyboards: a switch value of "1"/"0" is its checked state, not a value', () => {
    const p = dump('ios/ldi-github-shirates-core__XmlDataIos.KeyboardScreen.xml');
    const sw = (label: string) => p.snapshot.nodes.find((n) => n.role === 'switch' && n.label === label)!;
    expect(sw('Smart Punctuation')).toMatchObject({ value: null, states: { checked: true }, interactive: true });
    expect(sw('Auto-Correction').value).toBeNull();
    expect(sw('Auto-Correction').states).toEqual({});
    expect(byLabel(p, 'About Dictation and Privacy…').map((n) => n.role)).toContain('link');
  });

  it('the App.dev form: fields, an unlabelled back button, a status bar', () => {
    const p = dump('ios/ldi-github-shirates-core__XmlDataIos.iOS1.xml');
    expect(p.snapshot.screen).toEqual({ widthPt: 375, heightPt: 667, scale: 0 });
    expect(byLabel(p, 'password1')[0]).toMatchObject({ role: 'securefield', interactive: true });
    expect(p.snapshot.nodes.find((n) => n.role === 'navbar')).toMatchObject({ label: 'Text2' });
    expect(p.snapshot.nodes.filter((n) => n.role === 'button' && n.unnamed)).toHaveLength(1);
    // The name fields show their placeholder as their value and have no label.
    expect(p.snapshot.nodes.filter((n) => n.role === 'textfield' && n.unnamed).map((n) => n.value)).toEqual(['First Name', 'Last Name']);
    expect(p.snapshot.nodes.some((n) => n.role === 'status')).toBe(true);
    // "Register" and the rest of the form below the fold are visible="false".
    expect(byLabel(p, 'Register')).toHaveLength(0);
  });

  it('Calendar day view: scroll content reaching above the screen is kept, not offscreen', () => {
    const p = dump('ios/ldi-github-shirates-core__XmlDataIos.DateAndTime_ja.xml');
    const day = byLabel(p, '12月15日 金曜日')[0]!;
    expect(day.frame.y).toBeLessThan(0);
    expect(day.offscreen).toBe(false);
    expect(byLabel(p, '追加')[0]).toMatchObject({ role: 'button' });
  });

  it('tuist (AXe, trimmed): a heading "Previews" and a disabled button "Run"', () => {
    const p = dump('ios/tuist-tuist__server_test_tuist_qa_tools_test.exs.axe-describe-ui.json');
    expect(p.snapshot.screen).toEqual({ widthPt: 393, heightPt: 852, scale: 0 });
    expect(p.snapshot.nodes).toHaveLength(3);
    expect(byLabel(p, 'Previews')[0]).toMatchObject({ role: 'heading', parent: 0, source: 'axe', frame: { x: 16, y: 101.3, width: 143.3, height: 40.7 } });
    expect(byLabel(p, 'Run')[0]).toMatchObject({ role: 'button', states: { disabled: true }, interactive: true, unnamed: false });
  });

  it('LINE (AXe, nested): navigation, headings, and the types outside the vocabulary said', () => {
    const p = dump('ios/lycorp-jp-sim-use__Tests_Fixtures_list-detection_account-settings.raw.json');
    expect(p.snapshot.screen).toEqual({ widthPt: 402, heightPt: 874, scale: 0 });
    const nav = p.snapshot.nodes.find((n) => n.id === 'アカウント')!;
    expect(nav.role).toBe('group');
    expect(p.snapshot.nodes.filter((n) => n.parent === nav.index).map((n) => [n.role, n.label])).toEqual([
      ['button', '戻る'],
      ['heading', 'アカウント'],
      ['button', '閉じる'],
    ]);
    expect(p.notes).toContain('element types outside the vocabulary read as other: GenericElement (10)');
    // AXValue "" is no value; the unnamed content group is left out, its rows attached to the app.
    expect(byLabel(p, '他の端末と連携')[0]).toMatchObject({ role: 'button', value: null, parent: 0 });
  });
});

// ----------------------------------------------------------------- hand-written fixtures
// HAND-WRITTEN, not captured: the corpus has no raw `uiautomator dump` (tag `node`, class as an
// attribute, no displayed=, no screen size on <hierarchy>) and no flat idb describe-all array.

const b = (x1: number, y1: number, x2: number, y2: number): string => `[${x1},${y1}][${x2},${y2}]`;
function node(cls: string, bounds: string, attrs: Record<string, string> = {}, children = ''): string {
  const all: Record<string, string> = {
    index: '0',
    text: '',
    'resource-id': '',
    class: cls,
    package: 'com.example.shop',
    'content-desc': '',
    checkable: 'false',
    checked: 'false',
    clickable: 'false',
    enabled: 'true',
    focusable: 'false',
    focused: 'false',
    scrollable: 'false',
    'long-clickable': 'false',
    password: 'false',
    selected: 'false',
    bounds,
    ...attrs,
  };
  const a = Object.entries(all)
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ');
  return children ? `<node ${a}>${children}</node>` : `<node ${a} />`;
}
/** HAND-WRITTEN raw `uiautomator dump` of a 1440x3120 px sign-in screen. */
const RAW_DUMP =
  `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
  node(
    'android.widget.FrameLayout',
    b(0, 0, 1440, 3120),
    {},
    node(
      'androidx.appcompat.widget.Toolbar',
      b(0, 84, 1440, 280),
      { 'resource-id': 'com.example.shop:id/toolbar' },
      node('android.widget.TextView', b(56, 140, 600, 224), { text: 'Sign  in\n' }),
    ) +
      node('com.google.android.material.textfield.TextInputEditText', b(56, 320, 1384, 480), {
        text: 'ada@example.com',
        hint: 'Email',
        clickable: 'true',
        focusable: 'true',
        focused: 'true',
        'resource-id': 'com.example.shop:id/email',
      }) +
      node('android.widget.EditText', b(56, 520, 1384, 680), { text: '••••••', hint: 'Password', password: 'true', clickable: 'true' }) +
      node('android.widget.Switch', b(56, 720, 1384, 860), { text: 'Remember me', checkable: 'true', checked: 'true', clickable: 'true' }) +
      node('android.widget.CheckedTextView', b(56, 880, 1384, 1000), { text: 'Send me offers', checkable: 'true', checked: 'false', clickable: 'true' }) +
      node('com.google.android.material.button.MaterialButton', b(56, 1040, 1384, 1200), { text: 'Sign in', clickable: 'true', enabled: 'false' }) +
      node('android.widget.ImageView', b(1240, 100, 1384, 244), { 'content-desc': 'Help', clickable: 'true' }) +
      node('android.widget.ImageView', b(56, 1240, 200, 1240)) +
      node(
        'androidx.recyclerview.widget.RecyclerView',
        b(0, 1300, 1440, 3120),
        { scrollable: 'true' },
        node(
          'android.widget.LinearLayout',
          b(0, 1300, 1440, 1500),
          { clickable: 'true' },
          node('android.widget.TextView', b(56, 1340, 800, 1460), { text: 'Forgot password?' }),
        ) + node('android.widget.LinearLayout', b(0, 1500, 1440, 1700), { clickable: 'true', 'content-desc': 'Create account' }),
      ),
  ) +
  `</hierarchy>`;

/** HAND-WRITTEN flat idb `ui describe-all --json` array (no children; one entry without `type`, one without `frame`). */
function idbEntry(
  type: string | null,
  label: string | null,
  frame: [number, number, number, number],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const [x, y, width, height] = frame;
  return {
    AXFrame: `{{${x}, ${y}}, {${width}, ${height}}}`,
    AXUniqueId: null,
    frame: { x, y, width, height },
    role_description: (type ?? '').toLowerCase(),
    AXLabel: label,
    content_required: false,
    ...(type === null ? {} : { type }),
    title: null,
    help: null,
    custom_actions: [],
    AXValue: null,
    enabled: true,
    role: `AX${type ?? 'Button'}`,
    subrole: null,
    ...extra,
  };
}
const IDB_FLAT = JSON.stringify([
  idbEntry('Application', 'Shop', [0, 0, 390, 844]),
  idbEntry('StaticText', 'Sign in', [16, 100, 120, 40], { role: 'AXHeading', type: 'Heading' }),
  idbEntry('TextField', 'Email', [16, 160, 358, 44], { AXValue: 'ada@example.com', AXUniqueId: 'email' }),
  idbEntry('Switch', 'Remember me', [16, 220, 358, 44], { AXValue: '1' }),
  idbEntry(null, 'Sign in', [16, 280, 358, 50], { enabled: false }),
  { ...idbEntry('Button', '', [330, 50, 44, 44]), frame: undefined },
  idbEntry('Image', 'Logo', [0, 0, 0, 0]),
  idbEntry('GenericElement', 'Promo', [0, 900, 390, 100]),
  idbEntry('Group', null, [0, 0, 390, 844]),
]);

describe('a raw uiautomator dump (hand-written)', () => {
  it('is detected and read: screen from the elements, density from the width, both said', () => {
    expect(detectFormat(RAW_DUMP)).toBe('uiautomator-xml');
    const p = parseDump(RAW_DUMP);
    expect(p).toMatchObject({ format: 'uiautomator-xml', platform: 'android' });
    expect(p.snapshot.screen).toEqual({ widthPt: 411.4, heightPt: 891.4, scale: 3.5 });
    expect(p.notes).toEqual([
      "screen size not given by <hierarchy>; 1440x3120 px taken from the elements' bounds (a dialog alone may be smaller than the screen)",
      'density not given; 3.5 inferred from a 1440 px wide screen',
      '1 zero-sized node left out',
    ]);
    expect(p.snapshot.skippedInvisible).toBe(1);
    expectWellFormed(p);
  });

  it('maps classes, fields, states and ids as the model says', () => {
    const { nodes } = parseDump(RAW_DUMP).snapshot;
    const shape = nodes.map((n) => [n.role, n.label, n.value, n.states, n.id, n.interactive, n.parent]);
    expect(shape).toEqual([
      // The unnamed FrameLayout root is layout only: left out, its children at the top.
      ['toolbar', '', null, {}, 'toolbar', false, null],
      ['text', 'Sign in', null, {}, null, false, 0],
      ['textfield', 'Email', 'ada@example.com', { focused: true }, 'email', true, null],
      ['securefield', 'Password', '••••••', {}, null, true, null],
      ['switch', 'Remember me', null, { checked: true }, null, true, null],
      ['checkbox', 'Send me offers', null, {}, null, true, null],
      ['button', 'Sign in', null, { disabled: true }, null, true, null],
      ['button', 'Help', null, {}, null, true, null],
      ['list', '', null, {}, null, false, null],
      ['cell', '', null, {}, null, true, 8],
      ['text', 'Forgot password?', null, {}, null, false, 9],
      ['cell', 'Create account', null, {}, null, true, 8],
    ]);
    expect(nodes[9]!.unnamed).toBe(true);
    expect(nodes[2]!.frame).toEqual({ x: 16, y: 91.4, width: 379.4, height: 45.7 });
  });

  it('takes a density when given one, and says nothing about it', () => {
    const p = parseDump(RAW_DUMP, { density: 4 });
    expect(p.snapshot.screen).toEqual({ widthPt: 360, heightPt: 780, scale: 4 });
    expect(p.notes.some((n) => n.includes('density'))).toBe(false);
  });

  it('leaves out the line `uiautomator dump /dev/tty` prints after the XML, and says so', () => {
    const p = parseDump(`${RAW_DUMP}UI hierchary dumped to: /dev/tty\n`);
    expect(p.snapshot.nodes).toHaveLength(12);
    expect(p.notes).toContain('text after </hierarchy> left out: "UI hierchary dumped to: /dev/tty"');
  });

  it('infers a landscape density against 800 dp', () => {
    const xml = `<hierarchy rotation="1" width="2088" height="1080">${node('android.widget.Button', b(100, 100, 400, 200), { text: 'OK', clickable: 'true' })}</hierarchy>`;
    const p = parseDump(xml);
    expect(p.snapshot.screen.scale).toBe(2.625);
    expect(p.notes).toContain('density not given; 2.625 inferred from a 2088 px wide landscape screen');
  });

  it('leaves out elements Appium marks not displayed, and counts them', () => {
    const xml = `<hierarchy width="1080" height="2400">${node('android.widget.Button', b(0, 0, 300, 100), { text: 'Shown', clickable: 'true', displayed: 'true' })}${node('android.widget.Button', b(0, 100, 300, 200), { text: 'Hidden', clickable: 'true', displayed: 'false' })}</hierarchy>`;
    const p = parseDump(xml);
    expect(p.snapshot.nodes.map((n) => n.label)).toEqual(['Shown']);
    expect(p.snapshot.skippedInvisible).toBe(1);
    expect(p.notes).toContain('1 node marked invisible left out');
  });
});

describe('a flat idb describe-all array (hand-written)', () => {
  it('is detected as idb and read, every fallback said', () => {
    expect(detectFormat(IDB_FLAT)).toBe('idb-json');
    const p = parseDump(IDB_FLAT);
    expect(p).toMatchObject({ format: 'idb-json', platform: 'ios' });
    expect(p.snapshot.screen).toEqual({ widthPt: 390, heightPt: 844, scale: 0 });
    expect(p.snapshot.nodes.map((n) => [n.role, n.label, n.value, n.states, n.id, n.interactive, n.parent, n.offscreen])).toEqual([
      ['application', 'Shop', null, {}, null, false, null, false],
      ['heading', 'Sign in', null, {}, null, false, null, false],
      ['textfield', 'Email', 'ada@example.com', {}, 'email', true, null, false],
      ['switch', 'Remember me', null, { checked: true }, null, true, null, false],
      ['button', 'Sign in', null, { disabled: true }, null, true, null, false],
      ['button', '', null, {}, null, true, null, false],
      ['other', 'Promo', null, {}, null, false, null, true],
    ]);
    expect(p.snapshot.nodes[5]).toMatchObject({ unnamed: true, frame: { x: 330, y: 50, width: 44, height: 44 } });
    expect(p.snapshot.skippedInvisible).toBe(1);
    expect(p.notes).toEqual([
      'pixel scale unknown (dumps give points only)',
      '1 zero-sized node left out',
      '1 element without type: role read from the AX role',
      '1 element without a frame object: frame read from the AXFrame string',
      'element types outside the vocabulary read as other: GenericElement (1)',
    ]);
    expectWellFormed(p);
  });

  it('reads as AXe when forced, and says a density means nothing to it', () => {
    const p = parseDump(IDB_FLAT, { format: 'axe-json', density: 3 });
    expect(p.format).toBe('axe-json');
    expect(p.snapshot.nodes[0]!.source).toBe('axe');
    expect(p.notes[0]).toBe('density 3 ignored: iOS dumps are in points already');
  });

  it('is the same every time', () => {
    expect(timeless(parseDump(IDB_FLAT))).toEqual(timeless(parseDump(IDB_FLAT)));
    expect(timeless(parseDump(RAW_DUMP))).toEqual(timeless(parseDump(RAW_DUMP)));
  });
});

describe('what is not a dump', () => {
  function failure(text: unknown, opts?: Parameters<typeof parseDump>[1]): DumpError {
    try {
      parseDump(text as string, opts);
    } catch (err) {
      expect(err).toBeInstanceOf(DumpError);
      expect((err as DumpError).hint.length).toBeGreaterThan(0);
      return err as DumpError;
    }
    return expect.unreachable('parsed');
  }

  it('empty input', () => {
    for (const text of ['', '  \n\t', '\uFEFF']) {
      const e = failure(text);
      expect(e.code).toBe('UNREADABLE');
      expect(e.message).toMatch(
        /^expected Android uiautomator\/Appium XML \(<hierarchy>\), XCUITest XML .*, or idb\/AXe JSON \(an array of elements with AXFrame\), found (empty input|only whitespace)$/,
      );
      expect(detectFormat(text as string)).toBeUndefined();
    }
  });

  it('text that is neither XML nor JSON', () => {
    const e = failure('adb: no devices/emulators found');
    expect(e.code).toBe('UNKNOWN_FORMAT');
    expect(e.message).toContain('found text starting with "adb: no devices/emulators found"');
  });

  it('JSON of the wrong shape', () => {
    const cases: [string, string][] = [
      ['{"status": "ok"}', 'found a JSON object with keys status'],
      ['[]', 'found an empty JSON array'],
      ['[1, 2, 3]', 'found a JSON array whose first entry is a JSON number'],
      ['[{"label": "x"}]', 'found a JSON array whose first entry is an object with keys label'],
      ['"hello"', 'found text starting with'],
      ['{"AXFrame": "{{0, 0}, {10, 10}}", "type": "Button"}', 'found a single JSON element, not an array'],
    ];
    for (const [text, found] of cases) {
      const e = failure(text);
      expect(e.code).toBe('UNKNOWN_FORMAT');
      expect(e.message).toContain('expected Android uiautomator/Appium XML');
      expect(e.message).toContain(found);
      expect(detectFormat(text)).toBeUndefined();
    }
  });

  it('malformed JSON', () => {
    const e = failure('[{"AXFrame": "{{0, 0}, {390, 844}}", ');
    expect(e.code).toBe('UNREADABLE');
    expect(e.message).toMatch(/^expected idb\/AXe JSON, found malformed JSON: /);
  });

  it('XML with an unknown root', () => {
    const e = failure('<?xml version="1.0"?>\n<!-- a picture --><svg width="10"><g/></svg>');
    expect(e.code).toBe('UNKNOWN_FORMAT');
    expect(e.message).toContain('found XML with root <svg>');
  });

  it('malformed XML of a known kind', () => {
    const e = failure('<hierarchy width="1080" height="2400"><node class="android.widget.Button" bounds="[0,0][10,10]"></hierarchy>');
    expect(e.code).toBe('UNREADABLE');
    expect(e.message).toMatch(/^expected well-formed Android uiautomator\/Appium XML \(<hierarchy>\), found malformed XML at line 1, column \d+: /);
    expect(failure('<AppiumAUT><XCUIElementTypeApplication x="0" y="0" width="390" height="844"').code).toBe('UNREADABLE');
  });

  it('a known root with nothing to measure the screen by', () => {
    expect(failure('<hierarchy rotation="0"/>').message).toContain('expected the screen size');
    expect(failure('<AppiumAUT></AppiumAUT>').message).toContain('found no elements');
    expect(failure('[{"AXFrame": "nonsense", "type": "Application"}]').message).toContain('expected the screen size');
  });

  it('a forced format the content does not fit', () => {
    const settings = read('ios/ldi-github-shirates-core__XmlDataIos.SettingsTopScreen.xml');
    let e = failure(settings, { format: 'uiautomator-xml' });
    expect(e.code).toBe('UNREADABLE');
    expect(e.message).toBe('expected Android uiautomator/Appium XML (<hierarchy>) (the format asked for), found XCUITest XML (<AppiumAUT>/<XCUIElementType…>)');
    expect(e.hint).toContain("'xcuitest-xml'");
    e = failure(IDB_FLAT, { format: 'xcuitest-xml' });
    expect(e.message).toContain('found idb describe-all JSON');
    e = failure(RAW_DUMP, { format: 'idb-json' });
    expect(e.message).toContain('found Android uiautomator/Appium XML');
    e = failure('hello', { format: 'axe-json' });
    expect(e.message).toContain('found text starting with "hello"');
  });

  it('something that is not text at all', () => {
    expect(failure(Buffer.from('<hierarchy/>')).message).toBe('expected the dump as text, found Buffer');
    expect(failure(null).code).toBe('UNREADABLE');
  });
});
