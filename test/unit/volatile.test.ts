// Words that change by themselves are not served stale (workers/understanding/volatile.ts): an
// element where the frames changed since the words were read, even by less than counts as change,
// is marked volatile and its words left out; a control with a caret blinking in it keeps its name.
import { describe, expect, it } from 'vitest';
import { analyse } from '../../workers/perception/analysis.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { withVolatile } from '../../workers/understanding/volatile.js';
import { Canvas, SCREEN } from '../helpers/synthetic-screen.js';
import { n, tree } from '../helpers/trees.js';

const frame = (c: Canvas, seq: number) =>
  analyse(new Uint8Array(c.px), { seq, at: seq * 16, wallAt: seq * 16, widthPt: SCREEN.widthPt, heightPt: SCREEN.heightPt });
const reading = readScreen(
  tree([
    n('text', '12:00:01', [8, 4, 60, 16]),
    n('heading', 'Departures', [16, 60, 200, 30]),
    n('textfield', 'Search', [16, 120, 361, 40], { states: { focused: true } }),
  ]),
  'web',
);

describe('volatile words', () => {
  it('marks the text where the frame changed, even faintly, and leaves the rest as read', () => {
    const before = new Canvas(240);
    // A clock's digit changes: one grid pixel two gray levels darker, under every threshold of change.
    const after = new Canvas(240).rect(1, 0, 1, 1, 238);
    const served = withVolatile(reading, frame(before, 1), frame(after, 2), []);
    const clock = served.elements.find((e) => e.role === 'text')!;
    expect(clock).toMatchObject({ label: '', flags: ['volatile'] });
    expect(served.elements.find((e) => e.role === 'heading')).toMatchObject({ label: 'Departures', flags: [] });
    // The original reading (what memory keeps) is untouched.
    expect(reading.elements.find((e) => e.role === 'text')!.label).toBe('12:00:01');
  });

  it('serves the reading as it is when nothing changed, or only inside a control (a caret in a field)', () => {
    const still = new Canvas(240);
    expect(withVolatile(reading, frame(still, 1), frame(still, 2), [])).toBe(reading);
    const caret = new Canvas(240).rect(4, 15, 1, 3, 20); // inside the field's box (y 120–160 pt)
    expect(withVolatile(reading, frame(still, 1), frame(caret, 2), []).elements.map((e) => e.flags)).toEqual([[], [], []]);
  });
});
