// Which option `type` into a select chooses (workers/acting/choose.ts): the words exactly, else the
// only option equal ignoring case and spacing; none, two, or a disabled one is a refusal that lists
// the options, capped.
import { describe, expect, it } from 'vitest';
import { matchOption } from '../../workers/acting/choose.js';

const sel = { role: 'select', label: 'Gender' };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string; hint: string; details: { options: string[]; optionCount: number } };
  }
  throw new Error('no refusal');
};

describe('choosing an option by its words', () => {
  it('takes the exact words first, else the one option equal ignoring case and spacing', () => {
    expect(matchOption(['Male', 'Female'], 'Female', sel)).toBe(1);
    expect(matchOption(['apple', 'Apple'], 'Apple', sel)).toBe(1);
    expect(matchOption(['The 1st Option', 'The 3rd  Option'], 'the 3rd option', sel)).toBe(1);
  });

  it('refuses two options equal ignoring case as AMBIGUOUS, and a text naming none as NO_MATCH, listing the options', () => {
    const two = refusal(() => matchOption(['apple', 'Apple', 'Banana'], 'APPLE', sel));
    expect(two.code).toBe('AMBIGUOUS');
    expect(two.details.options).toEqual(['apple', 'Apple', 'Banana']);
    const none = refusal(() => matchOption(['Male', 'Female'], 'Fem', sel));
    expect(none.code).toBe('NO_MATCH');
    expect(none.hint).toBe('the options: "Male", "Female"');
  });

  it('never chooses a disabled option, and says that is why', () => {
    const off = refusal(() => matchOption(['Male', 'Unknown'], 'Unknown', sel, [false, true]));
    expect(off.code).toBe('NO_MATCH');
    expect(off.message).toContain('disabled');
    expect(off.details.options).toEqual(['Male', 'Unknown (disabled)']);
  });

  it('lists at most twenty options, and says how many more there are', () => {
    const many = Array.from({ length: 45 }, (_, i) => `Country ${i}`);
    const r = refusal(() => matchOption(many, 'Atlantis', sel));
    expect(r.details.options).toHaveLength(20);
    expect(r.details.optionCount).toBe(45);
    expect(r.hint).toMatch(/and 25 more$/);
  });
});
