// Maestro selectors matched on the worker's elements as Maestro's Orchestra and Filters.kt match
// them: whole-text regular expressions with the literal fallback, index by place, relative, child
// and state filters, clickable first.
import { describe, expect, it } from 'vitest';
import { schemaValidator } from '../../openapi/contract.js';
import { parseMaestro } from '../../server/domain/flows/maestro/index.js';
import type { Element } from '../../workers/understanding/elements.js';
import { describeSelector, maestroRegex, selectAll, type Selector } from '../../workers/understanding/select.js';

function el(label: string, x: number, y: number, more: Partial<Element> = {}): Element {
  const frame = { x, y, width: more.frame?.width ?? 80, height: more.frame?.height ?? 20 };
  return {
    node: 0,
    role: 'text',
    label,
    detail: null,
    value: null,
    states: {},
    id: null,
    source: 'web',
    interactive: false,
    visible: frame,
    tap: { x: x + 40, y: y + 10 },
    flags: [],
    underLayer: false,
    ...more,
    frame,
  };
}

const pool = (elements: Element[], hidden: number[] = []) => ({ elements, shown: (i: number) => !hidden.includes(i) });
const labels = (els: Element[], sel: Selector, hidden: number[] = []) => selectAll(sel, pool(els, hidden)).map((i) => els[i]!.label);

describe('Maestro selectors on the screen', () => {
  it('matches text as a regular expression over the whole text, ignoring case, with the literal fallback', () => {
    const els = [el('Sign in', 0, 0), el('Sign up', 0, 30), el('Sign in later', 0, 60), el('Inbox (3)', 0, 90), el('Total: 12 €', 0, 120)];
    expect(labels(els, { text: 'sign (in|up)' })).toEqual(['Sign in', 'Sign up']);
    expect(labels(els, { text: 'Sign' })).toEqual([]); // whole text, not a part of it
    expect(labels(els, { text: 'Inbox (3)' })).toEqual(['Inbox (3)']); // as regex it is "Inbox 3"; the text equals the pattern
    expect(labels(els, { text: String.raw`Total: \d+ €` })).toEqual(['Total: 12 €']);
    expect(labels(els, { text: '.*later' })).toEqual(['Sign in later']);
  });

  it('matches the value and inner text too, and a text with newlines also as one line', () => {
    const els = [el('Email', 0, 0, { value: 'ada@example.com' }), el('Card', 0, 40, { detail: 'Line one\nline two' })];
    expect(labels(els, { text: '.*@example[.]com' })).toEqual(['Email']);
    expect(labels(els, { text: 'Line one line two' })).toEqual(['Card']);
    expect(labels(els, { text: 'line one.line two' })).toEqual(['Card']); // . matches the newline
  });

  it('compiles a pattern JavaScript cannot read as the text itself, and reads Java inline flags', () => {
    expect(maestroRegex('+1 (555').test('+1 (555')).toBe(true);
    const re = maestroRegex('(?i)hello');
    re.lastIndex = 0;
    expect(re.test('HELLO')).toBe(true);
    // a multiline flag must not turn the whole-text match into a per-line match
    const ml = maestroRegex('b');
    ml.lastIndex = 0;
    expect(ml.test('a\nb')).toBe(false);
  });

  it('matches an id as a whole, or the part after its last slash', () => {
    const els = [el('a', 0, 0, { id: 'com.shop:id/buy_button' }), el('b', 0, 30, { id: 'buy_link' }), el('c', 0, 60, { id: 'cart' })];
    expect(labels(els, { id: 'buy_.*' })).toEqual(['a', 'b']);
    expect(labels(els, { id: 'com.shop:id/buy_button' })).toEqual(['a']);
  });

  it('takes index by place (top, then left) and otherwise puts what answers taps first', () => {
    const els = [el('Item', 100, 50), el('Item', 0, 50), el('Item', 0, 10, { interactive: true, role: 'button' }), el('Item', 0, 90)];
    expect(selectAll({ text: 'Item', index: 0 }, pool(els))).toEqual([2]);
    expect(selectAll({ text: 'Item', index: 1 }, pool(els))).toEqual([1]);
    expect(selectAll({ text: 'Item', index: 2 }, pool(els))).toEqual([0]);
    expect(selectAll({ text: 'Item', index: 9 }, pool(els))).toEqual([]);
    expect(selectAll({ text: 'Item' }, pool(els))[0]).toBe(2);
  });

  it('keeps what is below, above, left or right of another match, nearest first', () => {
    const els = [el('Email', 0, 100), el('Field A', 0, 130), el('Field B', 0, 300), el('Header', 0, 0), el('Left', 0, 400), el('Right', 200, 400)];
    expect(labels(els, { below: { text: 'Email' } })).toEqual(['Field A', 'Field B', 'Left', 'Right']);
    expect(labels(els, { text: 'Field.*', below: { text: 'Email' } })).toEqual(['Field A', 'Field B']);
    expect(labels(els, { above: { text: 'Email' } })).toEqual(['Header']);
    expect(labels(els, { leftOf: { text: 'Right' } })).toEqual(['Left', 'Field B', 'Field A', 'Email', 'Header']);
    expect(labels(els, { rightOf: { text: 'Left' } })).toEqual(['Right']);
  });

  it('keeps elements inside another (childOf) or holding another (containsChild), read from their frames', () => {
    const row1 = el('Row 1', 0, 0, { frame: { x: 0, y: 0, width: 300, height: 50 } });
    const row2 = el('Row 2', 0, 60, { frame: { x: 0, y: 60, width: 300, height: 50 } });
    const del1 = el('Delete', 200, 10, { interactive: true });
    const del2 = el('Delete', 200, 70, { interactive: true });
    const els = [row1, row2, del1, del2];
    expect(selectAll({ text: 'Delete', childOf: { text: 'Row 2' } }, pool(els))).toEqual([3]);
    expect(selectAll({ containsChild: { text: 'Delete', index: 0 } }, pool(els))).toEqual([0]);
  });

  it('filters by enabled, checked, focused and selected', () => {
    const els = [
      el('Wi-Fi', 0, 0, { states: { checked: true } }),
      el('Bluetooth', 0, 30, { states: { checked: false, disabled: true } }),
      el('Search', 0, 60, { states: { focused: true, selected: true } }),
    ];
    expect(labels(els, { checked: true })).toEqual(['Wi-Fi']);
    expect(labels(els, { enabled: false })).toEqual(['Bluetooth']);
    expect(labels(els, { text: '.*', enabled: true, checked: false })).toEqual(['Search']);
    expect(labels(els, { focused: true, selected: true })).toEqual(['Search']);
  });

  it('passes over a match that holds a deeper match, and over what is not on the screen', () => {
    const card = el('Offer', 0, 0, { frame: { x: 0, y: 0, width: 300, height: 100 } });
    const inner = el('Offer', 10, 10);
    expect(selectAll({ text: 'Offer' }, pool([card, inner]))).toEqual([1]);
    expect(selectAll({ text: 'Offer' }, pool([card, inner], [1]))).toEqual([0]);
  });

  it('says what it looked for', () => {
    expect(describeSelector({ text: 'Buy', below: { id: 'price' }, enabled: true, index: 1 })).toBe('text ~ "Buy", below (id ~ "price"), enabled, index 1');
  });

  it('refuses a selector nested deeper than four levels, in the contract and in a flow, without recursing without end', () => {
    const valid = schemaValidator<unknown>('DoRequest');
    const nest = (levels: number) => {
      let sel: unknown = { text: 'x' };
      for (let i = 1; i < levels; i++) sel = { below: sel };
      return sel;
    };
    expect(valid({ steps: [{ action: 'tap', select: nest(4) }] })).toBe(true);
    expect(valid({ steps: [{ action: 'tap', select: nest(5) }] })).toBe(false);
    expect(valid({ steps: [{ action: 'tap', select: nest(50_000) }] })).toBe(false); // a recursive schema overflowed the stack here
    const yaml = ['appId: app', '---', '- tapOn:', '    text: a', '    below: { text: b, below: { text: c, below: { text: d, below: { text: e } } } }'].join(
      '\n',
    );
    const plan = parseMaestro('flow.yaml', () => yaml);
    expect(plan.problems.map((p) => [p.line, p.message])).toEqual([
      [3, 'relative selectors nest at most 4 deep in simfleet; name an element nearer the one you want'],
    ]);
  });
});
