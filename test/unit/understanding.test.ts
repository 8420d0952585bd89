// The understanding layer on hand-built trees: regions, lists, tap points, merging by containment,
// the outline's stability, identity and refs. Real trees (Chromium, the corpus) are tested in
// test/browser/understanding.test.ts and test/unit/corpus-understanding.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare, ScreenBook, SLOT_TOKEN } from '../../workers/understanding/identity.js';
import { mergeSources } from '../../workers/understanding/merge.js';
import { isName } from '../../workers/understanding/names.js';
import { outlineText } from '../../workers/understanding/outline.js';
import { locate, parseTarget, type Numbered } from '../../workers/understanding/refs.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { listScreen, n, tree } from '../helpers/trees.js';

const ROWS = [
  'Weekly digest',
  'Payment received',
  'Lunch on Friday',
  'Design review',
  'Quarterly report',
  'Team offsite',
  'Password changed',
  'New comment',
  'Order shipped',
  'Invitation',
  'Build passed',
  'Reminder',
  'Welcome',
];
const numbered = (t: ReturnType<typeof tree>, id = 'aaaa0001'): Numbered => {
  const reading = readScreen(t, 'web');
  return { reading, screen: { id, name: reading.title } };
};
const header = (r: ReturnType<typeof readScreen>) => ({ device: 'web test', screenId: r.fingerprint.hash, name: r.title });

describe('regions, lists and tap points', () => {
  it('finds the declared bars, the primary list and its rows, and the title', () => {
    const r = readScreen(listScreen('Inbox', ROWS, { back: 'Back' }), 'web');
    expect(r.regions.top).toMatchObject({ y0: 0, y1: 88 });
    expect(r.regions.bottom).toMatchObject({ y0: 768 });
    expect(r.title).toBe('Inbox');
    expect(r.lists).toHaveLength(1);
    expect(r.lists[0]!.rows).toHaveLength(ROWS.length);
    const text = outlineText(r, header(r));
    expect(text).toContain('[top]');
    expect(text).toMatch(/\[content\] list #1\.\.#13, \d+ visible/);
    expect(text).toContain('#1 cell 197,128 "Weekly digest"');
    expect(text).toMatch(/\[bottom\]\n@\d+ tab 98,796 "Home" selected/);
  });

  it('finds a top bar from the gap after it when the tree declares none', () => {
    const rows = ROWS.slice(0, 8).map((r, i) => n('button', r, [0, 120 + i * 50, 393, 44]));
    const r = readScreen(tree([n('button', 'Close', [8, 40, 60, 30]), n('text', 'Account', [150, 44, 93, 22]), ...rows]), 'ios');
    expect(r.regions.evidence.top).toBe('gap');
    expect(r.regions.top!.y1).toBe(70);
    expect(r.title).toBe('Account');
    expect(r.regions.bottom).toBeNull(); // the last row is no bar: no gap sets it apart
  });

  it('counts a large title drawn tight above the content as the title, not as a bar', () => {
    // No bar declared, and the title sits as close above the first row as the rows sit to each
    // other: no gap sets it apart, so it is content; it is the title by being the first row, alone,
    // and clearly bigger than the screen's other text.
    const mailboxes = (titleHeight: number, bar: ReturnType<typeof n>[] = []) =>
      tree([
        ...bar,
        n('text', 'Mailboxes', [16, 92, 250, titleHeight]),
        ...['Inbox', 'Drafts', 'Sent', 'Junk', 'Trash', 'Archive'].map((x, i) => n('cell', x, [0, 92 + titleHeight + 8 + i * 52, 393, 44])),
        ...['Updated just now', 'Three unread'].map((x, i) => n('text', x, [16, 560 + i * 26, 300, 18])),
      ]);
    const r = readScreen(mailboxes(41), 'ios');
    expect(r.regions.top).toBeNull();
    expect(r.regionOf[r.elements.findIndex((e) => e.label === 'Mailboxes')]).toBe('content');
    expect(r.title).toBe('Mailboxes');
    // It names the screen; it vetoes nothing: a scrolled page shows another first row there.
    expect(r.fingerprint.title).toBeNull();
    // Under a navigation bar that holds only a back button (iOS's large-title style), the same.
    const under = readScreen(mailboxes(41, [n('navbar', '', [0, 0, 393, 88], { children: [n('button', 'Back', [8, 44, 70, 36])] })]), 'ios');
    expect(under.regions.evidence.top).toBe('declared');
    expect(under.title).toBe('Mailboxes');
    // The same words at the size of the other text are a line of content, not a title.
    expect(readScreen(mailboxes(18), 'ios').title).toBeNull();
  });

  it('finds a bottom bar from the gap before it when the tree declares none', () => {
    // Plain buttons, no tab bar role: the gap above the last row stands out against the rows' own
    // spacing, and the row ends at the bottom edge.
    const library = (barY: number) =>
      tree([
        n('heading', 'Library', [16, 60, 200, 34]),
        ...['Albums', 'Artists', 'Songs', 'Genres', 'Podcasts'].map((x, i) => n('button', x, [0, 110 + i * 50, 393, 44])),
        ...['Home', 'Search', 'Browse'].map((x, i) => n('button', x, [i * 131, barY, 131, 44])),
      ]);
    const r = readScreen(library(790), 'ios');
    expect(r.regions.evidence.bottom).toBe('gap');
    expect(r.regions.bottom).toEqual({ y0: 790, y1: 852 });
    expect(['Home', 'Search', 'Browse'].map((x) => r.regionOf[r.elements.findIndex((e) => e.label === x)])).toEqual(['bottom', 'bottom', 'bottom']);
    expect(outlineText(r, header(r))).toMatch(/\[bottom\]\n@7 button 66,812 "Home"\n/);
    // The same row 140 pt above the bottom edge is content: a bottom bar sits at the edge.
    const raised = readScreen(library(690), 'ios');
    expect(raised.regions.bottom).toBeNull();
    expect(raised.regionOf[raised.elements.findIndex((e) => e.label === 'Home')]).toBe('content');
  });

  it('finds a list by its rhythm when its rows differ in height, and none where neither heights nor rhythm hold', () => {
    // A feed: cells from 30 to 112 pt tall (too unlike for a table) on a steady 120 pt pitch.
    const heights = [30, 110, 40, 112, 35, 100];
    const feed = (tops: number[]) =>
      tree([n('list', '', [0, 80, 393, 772], { children: heights.map((h, i) => n('cell', `Post ${'ABCDEF'[i]}`, [0, tops[i]!, 393, h])) })]);
    const r = readScreen(feed([100, 220, 340, 460, 580, 700]), 'ios');
    expect(r.lists).toHaveLength(1);
    expect(r.lists[0]).toMatchObject({ rank: 1, basis: 'rhythm', visible: 6 });
    expect(r.lists[0]!.rows.map((i) => r.elements[i]!.label)).toEqual(['Post A', 'Post B', 'Post C', 'Post D', 'Post E', 'Post F']);
    expect(outlineText(r, header(r))).toContain('[content] list #1..#6, 6 visible\n');
    // The same cells at an uneven pitch are no list.
    expect(readScreen(feed([100, 220, 280, 480, 570, 720]), 'ios').lists).toEqual([]);
  });

  it('taps a row half under the tab bar in the half that shows, and flags it', () => {
    // Row 12 spans 716..772 with the tab bar from 768: 52 pt show. Row 13 spans 772..828: covered.
    const r = readScreen(listScreen('Inbox', ROWS), 'web');
    const i = r.elements.findIndex((e) => e.label === 'Reminder');
    const row = r.elements[i]!;
    expect(row.frame).toMatchObject({ y: 716, height: 56 });
    expect(row.flags).toContain('partly-covered');
    expect(row.tap!.y).toBeGreaterThanOrEqual(716);
    expect(row.tap!.y).toBeLessThan(768);
    expect(row.tap!.y).toBe(742);
    const hidden = r.elements.find((e) => e.label === 'Welcome')!;
    expect(hidden.tap).toBeNull();
    expect(hidden.flags).toContain('covered');
  });

  it('gives nothing behind a modal dialog a tap point, and outlines the dialog', () => {
    const base = listScreen('Inbox', ROWS.slice(0, 4));
    const withAlert = tree([
      ...rootsOf(base),
      n('alert', 'Delete message?', [40, 300, 313, 200], {
        children: [n('heading', 'Delete message?', [60, 320, 273, 24]), n('button', 'Cancel', [60, 440, 130, 44]), n('button', 'Delete', [203, 440, 130, 44])],
      }),
    ]);
    const r = readScreen(withAlert, 'web');
    expect(r.regions.modal?.label).toBe('Delete message?');
    expect(r.title).toBe('Delete message?');
    for (const e of r.elements) if (e.label !== 'Cancel' && e.label !== 'Delete' && e.label !== 'Delete message?') expect(e.tap, e.label).toBeNull();
    expect(outlineText(r, header(r))).toMatch(
      /\[modal\] alert "Delete message\?"\n@1 button 125,462 "Cancel"\n@2 button 268,462 "Delete"\n\(not shown: 7 covered\)\n$/,
    );
  });

  it('takes a sheet risen over a list as the modal layer: the rows beneath it are covered, not its own', () => {
    const base = listScreen('Inbox', ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta', 'Eta', 'Theta', 'Iota']);
    const sheet = tree([
      ...rootsOf(base),
      n('dialog', 'New message', [0, 300, 393, 552], {
        children: [
          n('button', 'Cancel', [8, 312, 70, 32]),
          n('heading', 'New message', [140, 316, 113, 24]),
          n('button', 'Send', [320, 312, 60, 32]),
          n('textfield', 'To', [16, 360, 361, 44]),
        ],
      }),
    ]);
    const r = readScreen(sheet, 'web');
    expect(r.regions.modal).toMatchObject({ role: 'dialog', label: 'New message', frame: { y: 300, height: 552 } });
    expect(r.title).toBe('New message');
    // Rows and tabs that lie within the sheet's frame but come before it in the tree are beneath it.
    for (const label of ['Epsilon', 'Iota', 'Home', 'Alpha']) {
      const e = r.elements.find((x) => x.label === label)!;
      expect(e.tap, label).toBeNull();
      expect(e.flags, label).toContain('covered');
    }
    expect(outlineText(r, header(r))).toMatch(
      /\[modal\] dialog "New message"\n@1 button 43,328 "Cancel"\n@2 button 350,328 "Send"\n@3 textfield 197,382 "To"\n\(not shown: \d+ covered\)\n$/,
    );
  });

  it('puts the keyboard in a region of its own, and taps a row it half covers in the part that shows', () => {
    const keys = 'qwertyuiop'.split('').map((k, i) => n('key', k, [3 + i * 39, 530, 35, 42]));
    const rows = Array.from({ length: 9 }, (_, i) => n('cell', `Recent ${i + 1}`, [0, 150 + i * 44, 393, 44]));
    const r = readScreen(
      tree([
        n('navbar', '', [0, 0, 393, 88], { children: [n('heading', 'Search', [150, 50, 93, 24])] }),
        n('textfield', 'Search', [16, 100, 361, 40], { states: { focused: true } }),
        ...rows,
        n('keyboard', '', [0, 516, 393, 336], { children: [...keys, n('key', 'return', [300, 780, 90, 42])] }),
      ]),
      'ios',
    );
    expect(r.regions.keyboard).toEqual({ x: 0, y: 516, width: 393, height: 336 });
    // Row 9 spans 502..546: 14 pt show above the keyboard, and it is tapped there.
    const half = r.elements.find((e) => e.label === 'Recent 9')!;
    expect(half.flags).toContain('partly-covered');
    expect(half.tap).toEqual({ x: 197, y: 509 });
    const text = outlineText(r, header(r));
    expect(text).toMatch(/\[keyboard\]\n@\d+ key 21,551 "q"\n/);
    expect(text).toContain('"return"');
    expect(text.indexOf('[keyboard]')).toBeGreaterThan(text.indexOf('"Recent 9"'));
  });

  it('moves a tap off a control drawn over it, to a part of its own, and flags it', () => {
    // A link bar laid over the last row (a demo's "Show search bar"), and a floating button over a row's middle.
    const rows = ['Item 17', 'Item 18'].map((x, i) => n('link', x, [0, 707 + i * 41, 393, 41]));
    const r = readScreen(
      tree([n('heading', 'Scroll', [0, 0, 393, 50]), ...rows, n('link', 'Show search bar', [0, 755, 393, 45]), n('button', 'Compose', [170, 700, 56, 56])]),
      'web',
    );
    const at = (label: string) => r.elements.find((e) => e.label === label)!;
    expect(at('Item 18').tap).toEqual({ x: 85, y: 752 }); // the 7 pt above the bar, beside the button
    expect(at('Item 18').flags).toContain('partly-covered');
    expect(at('Item 17').tap).toEqual({ x: 85, y: 728 }); // beside the floating button
    expect(at('Show search bar').tap).toEqual({ x: 197, y: 778 });
    expect(at('Compose').flags).not.toContain('partly-covered');
    // A row whose words fill it is not moved off its own words; a control it holds entirely is.
    const card = readScreen(tree([n('cell', 'Card', [0, 100, 393, 100], { children: [n('button', 'Like', [150, 130, 93, 40])] })]), 'web');
    const c = card.elements.find((e) => e.label === 'Card')!;
    expect(c.tap).toEqual({ x: 197, y: 115 });
  });

  it('taps an element the screen edge cuts off in the part that shows, and gives none to one wholly off it', () => {
    const cards = ['One', 'Two', 'Three', 'Four'].map((x, i) => n('cell', x, [16 + i * 148, 100, 140, 200]));
    const r = readScreen(tree([n('heading', 'Featured', [16, 60, 200, 30]), n('list', '', [0, 100, 393, 200], { children: cards })]), 'web');
    const three = r.elements.find((e) => e.label === 'Three')!; // 312..452: 81 pt show
    expect(three.flags).toContain('partly-offscreen');
    expect(three.tap).toEqual({ x: 353, y: 200 });
    const four = r.elements.find((e) => e.label === 'Four')!;
    expect(four.flags).toContain('offscreen');
    expect(four.tap).toBeNull();
    expect(outlineText(r, header(r))).toContain('@4 cell 353,200 "Three" partly-offscreen');
  });

  it('finds a secondary list and numbers its rows #N@2', () => {
    const friends = ['Ada', 'Grace', 'Alan', 'Linus', 'Ken', 'Barbara'].map((x, i) => n('cell', x, [0, 100 + i * 50, 393, 50]));
    const groups = ['Family', 'Work', 'Climbing'].map((x, i) => n('cell', x, [0, 440 + i * 64, 393, 64]));
    const r = readScreen(tree([n('list', '', [0, 100, 393, 300], { children: friends }), n('list', '', [0, 440, 393, 192], { children: groups })]), 'ios');
    expect(r.lists.map((l) => [l.rank, l.rows.length])).toEqual([
      [1, 6],
      [2, 3],
    ]);
    const text = outlineText(r, header(r));
    expect(text).toContain('#1 cell 197,125 "Ada"');
    expect(text).toContain('#3@2 cell 197,600 "Climbing"');
  });

  it('does not call captions stacked down a page a list', () => {
    const t = tree(
      ['Name', 'Email', 'Phone', 'Address'].flatMap((x, i) => [n('text', x, [16, 100 + i * 90, 80, 18]), n('textfield', x, [16, 122 + i * 90, 361, 44])]),
    );
    const r = readScreen(t, 'web');
    expect(r.lists).toEqual([]);
    // A caption naming the field below it is that field's label, not a line of its own.
    expect(r.elements.map((e) => e.role)).toEqual(['textfield', 'textfield', 'textfield', 'textfield']);
  });
});

describe('merging by containment', () => {
  it('makes text drawn inside a row that row, however small its box (IoU would keep both)', () => {
    // The word's box is 0.05 of the row's by IoU and wholly inside it.
    const t = tree([
      n('cell', '', [0, 200, 393, 88], {
        children: [n('text', 'Ada Lovelace', [16, 210, 120, 20]), n('text', 'Online', [16, 240, 60, 16]), n('image', '', [340, 220, 40, 40])],
      }),
    ]);
    const r = readScreen(t, 'ios');
    expect(r.elements).toHaveLength(1);
    expect(r.elements[0]).toMatchObject({ role: 'cell', label: 'Ada Lovelace', detail: 'Online' });
  });

  it('reads a row and the switch in it named alike as one control, the switch, which a tap must hit', () => {
    const t = tree([
      n('cell', 'Wi-Fi', [0, 200, 393, 50], { value: '1', children: [n('switch', 'Wi-Fi', [330, 210, 51, 31], { states: { checked: true } })] }),
    ]);
    const r = readScreen(t, 'ios');
    expect(r.elements.map((e) => e.role)).toEqual(['switch']);
    expect(outlineText(r, header(r))).toContain('@1 switch 356,226 "Wi-Fi" on\n');
    // An unnamed switch takes its row's name (Android rows name the row, not the switch).
    const android = tree([
      n('cell', '', [0, 300, 393, 62], { children: [n('text', 'Use location', [16, 310, 200, 24]), n('switch', '', [330, 306, 51, 50])] }),
    ]);
    expect(readScreen(android, 'android').elements.map((e) => [e.role, e.label, e.flags])).toEqual([['switch', 'Use location', []]]);
  });

  it('keeps a checkbox laid over the edge of a text field as a control of its own, and the field (a to-do list\'s "toggle all")', () => {
    // TodoMVC: the toggle-all checkbox sits over the left end of the new-entry field, unnamed, inside
    // the field's box. Taking it for the field's toggle named it with the placeholder and dropped the
    // field: `type` into the placeholder then tapped the checkbox.
    const t = tree([
      n('textfield', 'What needs to be done?', [1, 146, 392, 65], { id: 'new-todo', states: { focused: true } }),
      n('checkbox', '', [2, 148, 41, 64], { id: 'toggle-all', states: { checked: false } }),
      n('list', '', [1, 213, 392, 59], { children: [n('cell', 'Buy milk', [1, 213, 392, 59], { children: [n('checkbox', '', [1, 222, 40, 40])] })] }),
    ]);
    const r = readScreen(t, 'web');
    const field = r.elements.find((e) => e.role === 'textfield');
    const toggle = r.elements.find((e) => e.id === 'toggle-all');
    expect(field).toMatchObject({ label: 'What needs to be done?', id: 'new-todo' });
    expect(toggle).toMatchObject({ role: 'checkbox', label: '' });
    // The row's own checkbox still takes the row's name.
    expect(r.elements.filter((e) => e.role === 'checkbox').map((e) => e.label)).toEqual(['', 'Buy milk']);
  });

  it('names a field no label is tied to by the text beside it in its row, or the caption above it, and says so', () => {
    const t = tree([
      n('text', 'Email', [16, 230, 60, 20]),
      n('textfield', 'you@example.com', [100, 224, 277, 32], { nameFrom: 'placeholder' }),
      n('text', 'Phone', [16, 270, 60, 20]),
      n('textfield', '', [100, 264, 277, 32], { nameFrom: 'placeholder' }),
      n('text', 'Delivery notes:', [16, 310, 200, 20]),
      n('textfield', '', [16, 334, 361, 60], { nameFrom: 'placeholder' }),
      // A field with a label of its own keeps it, though a text stands beside it.
      n('text', 'Promo', [16, 410, 60, 20]),
      n('textfield', 'Coupon code', [100, 404, 277, 32]),
    ]);
    const r = readScreen(t, 'web');
    const fields = r.elements.filter((e) => e.role === 'textfield').map((e) => [e.label, e.detail, e.flags]);
    expect(fields).toEqual([
      ['Email', 'you@example.com', ['label-beside']],
      ['Phone', null, ['label-beside']],
      ['Delivery notes', null, ['label-beside']],
      ['Coupon code', null, []],
    ]);
    // The words that name a field are not lines of their own; a text that names nothing stays.
    expect(r.elements.filter((e) => e.role === 'text').map((e) => e.label)).toEqual(['Promo']);
    expect(outlineText(r, header(r))).toContain('textfield 239,240 "Email" · you@example.com label-beside');
  });

  it('keeps a switch in a row about something else as its own control', () => {
    const t = tree([n('cell', 'Notifications', [0, 200, 393, 50], { children: [n('switch', 'Allow', [330, 210, 51, 31])] })]);
    expect(readScreen(t, 'ios').elements.map((e) => e.role)).toEqual(['cell', 'switch']);
  });
});

describe('the outline', () => {
  it('is byte-stable: the same tree, and the same tree with sub-point jitter, give the same bytes', () => {
    const a = readScreen(listScreen('Inbox', ROWS), 'web');
    const b = readScreen(listScreen('Inbox', ROWS), 'web');
    const jittered = listScreen('Inbox', ROWS);
    for (const node of jittered.nodes) node.frame = { ...node.frame, x: node.frame.x + 0.2, y: node.frame.y - 0.2 };
    const c = readScreen(jittered, 'web');
    expect(outlineText(a, header(a))).toBe(outlineText(b, header(b)));
    expect(outlineText(c, header(c))).toBe(outlineText(a, header(a)));
  });
});

describe('identity', () => {
  it('is the same screen with more rows, scrolled, or with other row texts', () => {
    const a = readScreen(listScreen('Inbox', ROWS.slice(0, 5)), 'web').fingerprint;
    const b = readScreen(listScreen('Inbox', ROWS, { scrollY: 120 }), 'web').fingerprint;
    const c = readScreen(
      listScreen(
        'Inbox',
        ROWS.map((r) => `${r} (2)`),
      ),
      'web',
    ).fingerprint;
    expect(compare(a, b).same).toBe(true);
    expect(compare(a, c).same).toBe(true);
  });

  it('lets a differing title veto a match however alike the shapes', () => {
    const a = readScreen(listScreen('Notifications', ['Allow', 'Sounds', 'Badges'], { back: 'Settings' }), 'web').fingerprint;
    const b = readScreen(listScreen('Privacy', ['Allow', 'Sounds', 'Badges'], { back: 'Settings' }), 'web').fingerprint;
    const c = compare(a, b);
    expect(c.similarity).toBe(1); // built the same: only the title tells them apart
    expect(c.titleVeto).toBe(true);
    expect(c.same).toBe(false);
  });

  it("takes the bar's title, not a section heading centred under it, on a phone and on a tablet alike", () => {
    // After a real app's phone and tablet dumps (fit half of the labelled set): a toolbar's centred
    // title and a centred "Schedules" under it, in one top region. On the tablet the heading sits
    // a point nearer the middle, which made it the title there and vetoed the match.
    const screen = (W: number, H: number, titleX: number, headingX: number) =>
      tree(
        [
          n('header', '', [0, 0, W, 110], {
            children: [
              n('button', 'Navigate up', [0, 24, 56, 56]),
              n('text', 'FOCUS MODE', [titleX - 50, 40, 100, 24], { id: 'toolbarTitleTv' }),
              n('text', 'Schedules', [headingX - 40, 84, 80, 20], { id: 'tvInfo' }),
            ],
          }),
          n('list', '', [0, 120, W, H - 240], {
            id: 'recSchedules',
            children: [0, 1, 2, 3].map((i) =>
              n('cell', `Schedule ${'ABCD'[i]}`, [0, 120 + i * 60, W, 56], { id: 'tvMorning', children: [n('switch', 'On', [W - 64, 132 + i * 60, 48, 32])] }),
            ),
          }),
          n('button', 'Add schedule', [W / 2 - 60, H - 110, 120, 40], { id: 'btnAddSchedule' }),
        ],
        { widthPt: W, heightPt: H, scale: 2 },
      );
    const phone = readScreen(screen(400, 884, 200, 200), 'android');
    const tablet = readScreen(screen(742.5, 448, 372, 371), 'android');
    expect(phone.fingerprint.title).toBe('FOCUS MODE');
    expect(tablet.fingerprint.title).toBe('FOCUS MODE');
    expect(compare(phone.fingerprint, tablet.fingerprint)).toMatchObject({ same: true, titleVeto: false });
    // A text clearly nearer the middle still wins over one above it (a search hint left of centre).
    const hint = readScreen(screen(400, 884, 170, 200), 'android');
    expect(hint.fingerprint.title).toBe('Schedules');
  });

  it('makes a fingerprint of ids, names in the chrome and of controls, kinds of element and of list rows; never data', () => {
    const inbox = (o: { clock: string; price: string; notes: string[]; rows: number; compose: number; width: number }) =>
      tree(
        [
          n('header', '', [0, 0, o.width, 88], {
            children: [n('button', 'Back', [8, 44, 80, 36]), n('heading', 'Inbox', [140, 50, 113, 24]), n('text', o.clock, [o.width - 63, 10, 50, 16])],
          }),
          n('button', 'Compose', [16, 100, o.compose, 44], { id: 'compose' }),
          n('button', o.price, [200, 100, 120, 44]),
          ...o.notes.map((x, i) => n('text', x, [16, 150 + i * 24, 300, 20])),
          n('list', '', [0, 260, o.width, 500], {
            id: 'messages',
            children: ROWS.slice(0, o.rows).map((x, i) =>
              n('cell', '', [0, 260 + i * 56, o.width, 56], { id: `message-${i + 1}`, children: [n('text', x, [16, 278 + i * 56, 300, 20])] }),
            ),
          }),
          n('tabbar', '', [0, 768, o.width, 84], { children: ['Home', 'Settings'].map((x, i) => n('tab', x, [(i * o.width) / 2, 772, o.width / 2, 48])) }),
        ],
        { widthPt: o.width, heightPt: 852, scale: o.width > 500 ? 2 : 3 },
      );
    const fp = readScreen(
      inbox({ clock: '10:42', price: '$4.99', notes: ['3 new messages since Monday', 'Synced at 10:41', 'Offline'], rows: 4, compose: 120, width: 393 }),
      'web',
    ).fingerprint;
    expect(fp.tokens).toEqual([
      'c:back', // names in the chrome (what does not scroll), the title held apart
      'c:home',
      'c:settings',
      'i:compose', // stable ids, a list row's with its digits as #: the template, never the count
      'i:message-#',
      'i:messages',
      'l:cell', // the kind of each list's rows
      'n:compose', // a control's name in the content
      'r:button', // the kinds of element the screen holds, not how many
      'r:cell',
      'r:heading',
      'r:tab',
      'r:text',
    ]);
    expect(fp.title).toBe('Inbox'); // held apart for the veto, not a token
    // No time, price, count or weekday in any token, nor a digit anywhere a name goes.
    for (const t of fp.tokens) {
      expect(t, t).toMatch(/^([cns]:\D+|i:[^\d]+|r:[a-z]+(:readonly)?|l:[a-z]+|m:[a-z]+)$/);
      expect(t).not.toMatch(/10:4|4\.99|monday|synced|inbox/i);
    }
    // Another minute, price, count and weekday, a fourth note, more rows, a wider button and a
    // tablet's width: the same tokens.
    const later = readScreen(
      inbox({
        clock: '10:43',
        price: '$5.49',
        notes: ['4 new messages since Tuesday', 'Synced at 10:43', 'Offline', 'Paused'],
        rows: 9,
        compose: 130,
        width: 820,
      }),
      'web',
    ).fingerprint;
    expect(later.tokens).toEqual(fp.tokens);
    expect(later.hash).toBe(fp.hash);
  });

  it('keeps several fingerprints on one screen node: a reading that differs a little joins and adds its own', () => {
    // Three faces of one screen as it loads more sections: each close to the one before, the third
    // not close enough to the first, only to the second.
    const face = (ids: string[]) => ({ tokens: ids.map((i) => `i:${i}`), title: 'Inbox', hash: ids.join('').padEnd(8, '0') });
    const [one, two, three] = [face(['a', 'b', 'c', 'd']), face(['a', 'b', 'c', 'd', 'e', 'f']), face(['b', 'c', 'd', 'e', 'f', 'g'])];
    expect(compare(one, two).same).toBe(true);
    expect(compare(one, three).same).toBe(false);
    expect(compare(two, three).same).toBe(true);
    const book = new ScreenBook();
    const first = book.identify(one, 'Inbox');
    expect(book.identify(two, 'Inbox')).toMatchObject({ known: true, node: { id: first.node.id } });
    expect(first.node.fingerprints.map((f) => f.hash)).toEqual([one.hash, two.hash]);
    // The third joins through the second face; a book keeping one face per screen would have made it new.
    expect(book.identify(three, 'Inbox')).toMatchObject({ known: true, node: { id: first.node.id } });
    expect(first.node.fingerprints.map((f) => f.hash)).toEqual([one.hash, two.hash, three.hash]);
    // A face seen again is not stored twice.
    book.identify(two, 'Inbox');
    expect(first.node).toMatchObject({ readings: 4, fingerprints: { length: 3 } });
    expect(book.size).toBe(1);
  });

  it('joins a reading that arrives by scrolling to the node it scrolled from, though its structure alone would not', () => {
    // A long settings page: the top and the bottom share only their chrome (ids of other rows).
    const face = (ids: string[], title: string) => ({ tokens: ids.map((i) => `i:${i}`), title, hash: `${ids.join('')}${title}`.slice(0, 8) });
    const top = face(['hub-name', 'members', 'member-row'], 'Settings');
    const bottom = face(['tools', 'subscriptions', 'reminders'], 'Settings');
    expect(compare(top, bottom).same).toBe(false);
    const book = new ScreenBook();
    const first = book.identify(top, 'Settings');
    const arrival = (scrolled: boolean) => ({ from: first.node.id, scrolled, reached: () => false });
    expect(book.identify(bottom, 'Settings', arrival(false))).toMatchObject({ known: false, how: 'new' });
    const again = new ScreenBook();
    const a = again.identify(top, 'Settings');
    expect(again.identify(bottom, 'Settings', { from: a.node.id, scrolled: true, reached: () => false })).toMatchObject({
      known: true,
      how: 'scrolled',
      node: { id: a.node.id },
    });
    expect(a.node.fingerprints).toHaveLength(2); // the bottom is a face of the page now: the next visit needs no scroll
    // Scrolling does not carry a reading across a veto: another title is another screen.
    const other = face(['tools', 'subscriptions', 'reminders'], 'Privacy');
    expect(again.identify(other, 'Privacy', { from: a.node.id, scrolled: true, reached: () => false })).toMatchObject({ how: 'new' });
  });

  it('learns a title that is data as a slot: reached from the same screen, alike but for the title', () => {
    const face = (title: string) => ({ tokens: ['i:avatar', 'i:bio', 'i:follow', 'r:button'], title, hash: title.padEnd(8, '0') });
    const book = new ScreenBook();
    const list = book.identify({ tokens: ['i:people', 'l:cell'], title: 'People', hash: 'people00' }, 'People');
    const alice = book.identify(face('Alice'), 'Alice');
    expect(compare(face('Alice'), face('Bob'))).toMatchObject({ same: false, titleVeto: true });
    // Without the transition, a differing title stays a veto: look-alike siblings stay apart.
    const lone = new ScreenBook();
    lone.identify(face('Alice'), 'Alice');
    expect(lone.identify(face('Bob'), 'Bob', { from: 'elsewhere', scrolled: false, reached: () => false })).toMatchObject({ how: 'new' });
    // Reached from the list before, and now again from the list, built of the very same ids: the title is data.
    const edges = new Set([`${list.node.id}>${alice.node.id}`]);
    const reached = (from: string, to: string) => edges.has(`${from}>${to}`);
    expect(book.identify(face('Bob'), 'Bob', { from: list.node.id, scrolled: false, reached })).toMatchObject({ how: 'slot', node: { id: alice.node.id } });
    expect(alice.node.fingerprints.every((f) => f.tokens.includes(SLOT_TOKEN))).toBe(true); // kept with the faces, so memory shares it
    // Look-alike siblings reached from one screen (Settings > Notifications, Settings > Privacy) are
    // built of other ids: their titles stay names.
    const settings = new ScreenBook();
    const from = settings.identify({ tokens: ['i:rows'], title: 'Settings', hash: 'settings' }, 'Settings');
    const notifications = settings.identify({ tokens: ['i:switch-badges', 'i:back', 'r:switch'], title: 'Notifications', hash: 'notifica' }, 'Notifications');
    const siblings = (f: string, t: string) => f === from.node.id && t === notifications.node.id;
    const privacy = { tokens: ['i:switch-location', 'i:back', 'r:switch'], title: 'Privacy', hash: 'privacy0' };
    expect(settings.identify(privacy, 'Privacy', { from: from.node.id, scrolled: false, reached: siblings })).toMatchObject({ how: 'new' });
    // From now on any profile joins by structure, however it is reached.
    expect(book.identify(face('Carol'), 'Carol')).toMatchObject({ how: 'structure', node: { id: alice.node.id } });
  });

  it('joins a reading to a node only on evidence: a screen sharing nothing is a new node, never a default', () => {
    const book = new ScreenBook();
    const inbox = book.identify(readScreen(listScreen('Inbox', ROWS), 'web').fingerprint, 'Inbox');
    expect(inbox.known).toBe(false);
    const again = book.identify(readScreen(listScreen('Inbox', ROWS.slice(2), { scrollY: 60 }), 'web').fingerprint, 'Inbox');
    expect(again).toMatchObject({ known: true });
    expect(again.node.id).toBe(inbox.node.id);
    const other = book.identify(readScreen(tree([n('textfield', 'Search', [16, 60, 361, 44])]), 'web').fingerprint, null);
    expect(other.known).toBe(false);
    expect(other.node.id).not.toBe(inbox.node.id);
    expect(book.size).toBe(2);
  });
});

describe('refs and targets', () => {
  const inbox = numbered(listScreen('Inbox', ROWS, { back: 'Back' }), 'inbox001');

  it('parses every kind of target', () => {
    expect(parseTarget('@4')).toEqual({ kind: 'ref', n: 4 });
    expect(parseTarget('#3')).toEqual({ kind: 'row', n: 3, list: 1 });
    expect(parseTarget('#2@2')).toEqual({ kind: 'row', n: 2, list: 2 });
    expect(parseTarget('#field-email')).toEqual({ kind: 'id', id: 'field-email' });
    expect(parseTarget('120, 340.5')).toEqual({ kind: 'point', x: 120, y: 340.5 });
    expect(parseTarget('"Sign in"', 'button')).toEqual({ kind: 'label', label: 'Sign in', role: 'button' });
  });

  it('honours a ref on the screen that numbered it', () => {
    const found = locate(parseTarget('@3'), numbered(listScreen('Inbox', ROWS, { back: 'Back' }), 'inbox001'), inbox);
    expect(inbox.reading.elements[found.index]!.label).toBe('Weekly digest');
  });

  it('refuses a ref from another screen with STALE_REF naming the screen now, and one whose element moved', () => {
    const message = numbered(listScreen('Message', ['Reply', 'Forward'], { back: 'Inbox' }), 'msg00001');
    expect(() => locate(parseTarget('@3'), message, inbox)).toThrow(
      expect.objectContaining({ code: 'STALE_REF', details: { current: { id: 'msg00001', name: 'Message' } } }),
    );
    const scrolled = numbered(listScreen('Inbox', ROWS, { back: 'Back', scrollY: 150 }), 'inbox001');
    expect(() => locate(parseTarget('@3'), scrolled, inbox)).toThrow(
      expect.objectContaining({ code: 'STALE_REF', message: expect.stringContaining('has changed since it was numbered') }),
    );
    expect(() => locate(parseTarget('@3'), inbox, undefined)).toThrow(expect.objectContaining({ code: 'STALE_REF' }));
  });

  it('answers NO_MATCH for nothing and AMBIGUOUS for two, with candidates, never a guess', () => {
    const twice = numbered(tree([n('button', 'Edit', [10, 100, 80, 40]), n('button', 'Edit', [10, 300, 80, 40]), n('button', 'Share', [200, 100, 80, 40])]));
    expect(() => locate(parseTarget('Edit'), twice, undefined)).toThrow(
      expect.objectContaining({ code: 'AMBIGUOUS', details: { candidates: [expect.objectContaining({ ref: 1 }), expect.objectContaining({ ref: 3 })] } }),
    );
    expect(() => locate(parseTarget('Delete'), twice, undefined)).toThrow(expect.objectContaining({ code: 'NO_MATCH' }));
    expect(() => locate(parseTarget('Bookmark'), twice, undefined)).toThrow(expect.objectContaining({ code: 'NO_MATCH', details: { near: [] } }));
    // The nearest names, for the asker to choose from: a typo in one word of several is still near.
    const settings = numbered(
      tree([n('button', 'Notifications', [10, 100, 300, 44]), n('button', 'Privacy', [10, 150, 300, 44]), n('button', 'Sign out', [10, 200, 300, 44])]),
    );
    expect(() => locate(parseTarget('Notifcation settings'), settings, undefined)).toThrow(
      expect.objectContaining({ code: 'NO_MATCH', details: { near: ['Notifications'] } }),
    );
    expect(() => locate(parseTarget('Privcy and security'), settings, undefined)).toThrow(
      expect.objectContaining({ code: 'NO_MATCH', details: { near: ['Privacy'] } }),
    );
    expect(() => locate(parseTarget('Log in'), settings, undefined)).toThrow(expect.objectContaining({ code: 'NO_MATCH', details: { near: [] } }));
    // Fuzzy: one clear winner is taken (a prefix, a typo), two close ones are refused.
    expect(twice.reading.elements[locate(parseTarget('Shar'), twice, undefined).index]!.label).toBe('Share');
    expect(locate(parseTarget('Shrae'), twice, undefined).how).toBe('fuzzy');
    const tabs = numbered(tree([n('tab', 'Search', [0, 800, 131, 48]), n('tab', 'Settings', [131, 800, 131, 48]), n('tab', 'Inbox', [262, 800, 131, 48])]));
    expect(() => locate(parseTarget('Se'), tabs, undefined)).toThrow(
      expect.objectContaining({
        code: 'AMBIGUOUS',
        details: { candidates: [expect.objectContaining({ label: 'Search' }), expect.objectContaining({ label: 'Settings' })] },
      }),
    );
    expect(tabs.reading.elements[locate(parseTarget('setings'), tabs, undefined).index]!.label).toBe('Settings');
    const icons = numbered(tree([n('button', '', [10, 100, 44, 44], { id: 'icon-trash' }), n('button', '', [60, 100, 44, 44], { id: 'icon-share' })]));
    expect(icons.reading.elements[locate(parseTarget('trash'), icons, undefined).index]!.id).toBe('icon-trash');
    // A role tells two matches apart.
    const roles = numbered(tree([n('button', 'Edit', [10, 100, 80, 40]), n('link', 'Edit', [10, 300, 80, 40])]));
    expect(roles.reading.elements[locate(parseTarget('edit', 'link'), roles, undefined).index]).toMatchObject({ role: 'link', label: 'Edit' });
  });

  it('finds rows by number, refusing one below the screen', () => {
    expect(inbox.reading.elements[locate(parseTarget('#2'), inbox, undefined).index]!.label).toBe('Payment received');
    expect(() => locate(parseTarget('#13'), inbox, undefined)).toThrow(
      expect.objectContaining({ code: 'NO_MATCH', message: expect.stringContaining('not on the screen') }),
    );
    expect(() => locate(parseTarget('#40'), inbox, undefined)).toThrow(
      expect.objectContaining({ code: 'NO_MATCH', message: expect.stringContaining('13 rows') }),
    );
  });
});

function rootsOf(t: ReturnType<typeof tree>) {
  // Rebuild the hand tree's roots from a snapshot, for adding a layer on top.
  const kids = (i: number): ReturnType<typeof n>[] =>
    t.nodes
      .filter((x) => x.parent === i)
      .map((x) => n(x.role, x.label, [x.frame.x, x.frame.y, x.frame.width, x.frame.height], { states: x.states, children: kids(x.index) }));
  return t.nodes
    .filter((x) => x.parent === null)
    .map((x) => n(x.role, x.label, [x.frame.x, x.frame.y, x.frame.width, x.frame.height], { states: x.states, children: kids(x.index) }));
}

describe('what may enter an identity', () => {
  // Property tests over generated strings: data of every kind is refused, plain names are admitted.
  const word = fc
    .stringMatching(/^[A-Za-z][a-z]{2,9}$/)
    .filter((w) => !/^(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)/i.test(w));
  const around = (data: fc.Arbitrary<string>) =>
    fc.tuple(fc.option(word, { nil: '' }), data, fc.option(word, { nil: '' })).map(([a, d, b]) => [a, d, b].filter(Boolean).join(' '));
  const two = (n: number) => String(n).padStart(2, '0');
  const kinds: Record<string, fc.Arbitrary<string>> = {
    time: fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.boolean())
      .map(([h, m, ampm]) => (ampm ? `${h % 12 || 12}:${two(m)} ${h < 12 ? 'AM' : 'PM'}` : `${two(h)}:${two(m)}`)),
    date: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
      .chain((d) =>
        fc.constantFrom(
          d.toISOString().slice(0, 10),
          d.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }),
          d.toLocaleDateString('en-US', { month: 'long', day: 'numeric' }),
          d.toLocaleDateString('en-US', { weekday: 'long' }),
          d.toLocaleDateString('ja-JP'),
          d.toLocaleDateString('de-DE'),
        ),
      ),
    price: fc
      .tuple(fc.constantFrom('$', '€', '£', '¥', '₹'), fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99 }))
      .map(([c, a, b]) => `${c}${a}.${two(b)}`),
    count: fc.tuple(fc.integer({ min: 1, max: 9999 }), word).map(([k, w]) => `${k} ${w}`),
    url: fc.webUrl(),
    email: fc.emailAddress(),
    digits: fc.stringMatching(/^[0-9]{4,16}$/),
  };

  for (const [kind, data] of Object.entries(kinds)) {
    it(`refuses a ${kind}, alone or inside words`, () => {
      fc.assert(
        fc.property(around(data), (s) => !isName(s)),
        { numRuns: 300 },
      );
    });
  }

  it('admits plain names of words, in any script', () => {
    fc.assert(
      fc.property(
        fc
          .array(word, { minLength: 1, maxLength: 4 })
          .map((ws) => ws.join(' '))
          .filter((s) => s.length <= 40),
        (s) => isName(s),
      ),
      { numRuns: 300 },
    );
    for (const name of ['Settings', 'Back to Settings', 'Sign up', 'Wi-Fi', 'Date & time', 'アカウント', '日付と時刻', 'Einstellungen'])
      expect(isName(name), name).toBe(true);
  });
});

describe('two sources of one screen', () => {
  const ocr = (label: string, frame: [number, number, number, number]) => tree([n('text', label, frame)]).nodes.map((x) => ({ ...x, source: 'ocr' as const }));
  const withSource = (nodes: ReturnType<typeof ocr>) => ({ nodes, skippedInvisible: 0, screen: { widthPt: 393, heightPt: 852, scale: 3 }, durationMs: 0 });

  it('merge by containment: a word inside a row is that row, however small its box', () => {
    // The row's own text node is missing from the tree (React Native rows often are); OCR reads it.
    const first = tree([n('cell', '', [0, 200, 393, 88]), n('cell', 'Grace Hopper', [0, 288, 393, 88])]);
    const second = withSource([
      ...ocr('Ada Lovelace', [16, 210, 120, 20]),
      ...ocr('Grace Hopper', [16, 298, 120, 20]),
      ...ocr('Online', [16, 240, 60, 16]),
      ...ocr('Help', [300, 800, 60, 20]),
    ]);
    const { tree: merged, report } = mergeSources(first, second);
    expect(report).toEqual({ named: 1, repeated: 1, detailed: 1, added: 1, contradicted: 0 });
    const r = readScreen(merged, 'ios');
    expect(r.elements.map((e) => [e.role, e.label, e.detail, e.source])).toEqual([
      ['cell', 'Ada Lovelace', 'Online', 'web'],
      ['cell', 'Grace Hopper', null, 'web'],
      ['text', 'Help', null, 'ocr'],
    ]);
    // Asking for the row by its words finds one element, not a row and a word to choose between; the
    // row's name came from pixels, and the resolution says so.
    expect(r.elements[0]!.fromPixels).toEqual({ confidence: expect.any(Number) });
    expect(r.elements[1]!.fromPixels).toBeUndefined();
    expect(locate(parseTarget('Ada Lovelace'), { reading: r, screen: { id: 'x', name: null } }, undefined).how).toBe('ocr');
    expect(locate(parseTarget('Grace Hopper'), { reading: r, screen: { id: 'x', name: null } }, undefined).how).toBe('label');
  });

  it('where the tree and the pixels disagree, shows both: the label or = value from the tree, ~ text from pixels', () => {
    const first = tree([
      n('heading', 'Basket', [16, 60, 200, 30]),
      n('text', 'Total: $10.00', [16, 120, 200, 22]),
      n('text', 'Delivery on Friday, 12 June', [16, 160, 360, 22]),
      n('textfield', 'Email', [16, 220, 361, 44], { value: 'ada@example.com' }),
      n('textfield', 'Name', [16, 280, 361, 44], { value: 'Grace Hopper' }),
    ]);
    const second = withSource([
      ...ocr('Total: $12.50', [16, 121, 150, 20]), // the tree is stale: the page shows another total
      ...ocr('Delivery on Friday,', [16, 161, 200, 20]), // part of a label read on its own: the same words
      ...ocr('grace@example.com', [24, 230, 200, 24]), // the field shows other text than its value
      ...ocr('Grace Hoppor', [24, 290, 200, 24]), // one letter misread: no contradiction
    ]);
    const { tree: merged, report } = mergeSources(first, second);
    expect(report).toMatchObject({ contradicted: 2, repeated: 2 });
    const r = readScreen(merged, 'web');
    const text = outlineText(r, header(r));
    expect(text).toContain('text 116,131 "Total: $10.00" ~ "Total: $12.50"');
    expect(text).toMatch(/textfield 197,242 "Email" = "ada@example.com" ~ "grace@example.com"/);
    expect(text).toMatch(/textfield 197,302 "Name" = "Grace Hopper"\n/);
    expect(text).toMatch(/"Delivery on Friday, 12 June"\n/);
    // The tree's words stay what a target resolves by.
    expect(r.elements[locate(parseTarget('Total: $10.00'), { reading: r, screen: { id: 'x', name: null } }, undefined).index]!.pixelText).toBe('Total: $12.50');
  });
});

describe('memory per version band', () => {
  it('bands versions by their major number, minor before 1.0, any when there is none', async () => {
    const { versionBand } = await import('../../workers/memory/app-memory.js');
    expect([versionBand('3.2.1'), versionBand('v12'), versionBand('0.9.4'), versionBand(null), versionBand('nightly')]).toEqual([
      '3',
      '12',
      '0.9',
      'any',
      'any',
    ]);
  });
});
