// Text cut to a length without splitting a character, and made fit to store (workers/text/clip.ts):
// labels from real pages hold emoji and, now and then, characters Postgres refuses.
import { describe, expect, it } from 'vitest';
import { clip, ellipsize, storable, storableDeep } from '../../workers/text/clip.js';
import { normaliseLabel } from '../../workers/understanding/names.js';

/** True when no half of a surrogate pair stands alone: the string has a UTF-8 form. */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('clip and ellipsize', () => {
  it('never end on the first half of a pair, at every cut of a run of emoji', () => {
    const label = 'Inbox 📬📬📬 with 👩‍👩‍👧 family';
    for (let max = 0; max <= label.length + 1; max++) {
      const c = clip(label, max);
      expect(c.length).toBeLessThanOrEqual(max);
      expect(c.length).toBeGreaterThanOrEqual(Math.min(max, label.length) - 1);
      expect(wellFormed(c)).toBe(true);
      expect(label.startsWith(c)).toBe(true);
      const e = ellipsize(label, Math.max(1, max));
      expect(wellFormed(e)).toBe(true);
      expect(e.length).toBeLessThanOrEqual(Math.max(1, max));
    }
    // What the old cut gave: slice(0, 7) of "Inbox 📬" keeps half the emoji.
    expect(wellFormed('Inbox 📬'.slice(0, 7))).toBe(false);
    expect(clip('Inbox 📬', 7)).toBe('Inbox ');
    expect(ellipsize('short', 40)).toBe('short');
  });
});

describe('storable', () => {
  it('removes NUL and replaces a lone half of a pair with U+FFFD, keeping whole pairs', () => {
    expect(storable('a\u0000b')).toBe('ab');
    expect(storable('x\uD83D')).toBe('x\uFFFD');
    expect(storable('\uDC00x')).toBe('\uFFFDx');
    expect(storable('\uDC00\uD83D')).toBe('\uFFFD\uFFFD'); // a low half before a high one pairs with nothing
    expect(storable('ok 📬 é')).toBe('ok 📬 é');
  });

  it('goes through a whole message, keys included, and leaves numbers, booleans and null alone', () => {
    const input = { a: ['x\u0000', { 'k\uD800': 1, n: null, t: true }], b: 2.5 };
    const out = storableDeep(input);
    expect(out).toEqual({ a: ['x', { 'k\uFFFD': 1, n: null, t: true }], b: 2.5 });
    expect(input.a[0]).toBe('x\u0000'); // the input is not changed
  });
});

describe('a label as screens are read', () => {
  it('is storable from the start, so what a page named with NUL or half an emoji can be remembered and recorded', () => {
    expect(normaliseLabel(`  Arch\u0000ive \n ${'📬'.charAt(0)} `)).toBe('Archive \uFFFD');
    const plain = 'Settings';
    expect(normaliseLabel(plain)).toBe(plain);
  });

  it('drops icon-font glyphs, which draw a picture and are no words', () => {
    // Ionicons' checkmark after a radio's name; Font Awesome's envelope before a button's.
    expect(normaliseLabel('Angular \uf122')).toBe('Angular');
    expect(normaliseLabel('\uf0e0Mail')).toBe('Mail');
    expect(normaliseLabel('\u{F0001}')).toBe('');
    expect(normaliseLabel('Café ✓ 😀')).toBe('Café ✓ 😀');
  });
});
