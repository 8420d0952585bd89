// What may enter a screen's identity. A label is a name (a title, a button's word) or it is data
// (a time, a date, a price, a count, an address). Data changes while the screen stays the same, and
// a URL in an identity inverts recognition: every page mints a new screen that never recurs. So
// only names are admitted, and when in doubt a label is data.
import { storable } from '../text/clip.js';

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun';
const DATE_WORD = new RegExp(`(^|[^\\p{L}])(${MONTHS}|${WEEKDAYS})([^\\p{L}]|$)`, 'iu');
/**
 * Any digit in any script (Arabic-Indic, full-width, circled, …). Kanji numerals are not on the
 * list: they are everyday word parts (一覧 "list", 日本 "Japan"), and dates written in kanji carry
 * digits anyway (12月15日).
 */
const DIGIT = /[\p{Nd}\p{No}]/u;
const URLISH = /(:\/\/|^www\.|\.(com|org|net|io|dev|app|co|jp|de|uk|fr|gov|edu)(\/|$|\s)|[\w-]+\.[a-z]{2,}\/)/i;
const EMAIL = /\S@\S/;
const CURRENCY = /\p{Sc}/u;
const LETTER = /\p{L}/gu;

/** Labels longer than this are prose (a preview, a paragraph), not a name. */
export const MAX_NAME_LENGTH = 40;

/**
 * Private-use code points: icon-font glyphs (Ionicons, Font Awesome, react-native-vector-icons, SF
 * Symbols in a label) that draw a picture and mean nothing as text. A checkmark glyph after a name
 * would make "Angular" and "Angular\uf122" two labels of one row.
 */
const PRIVATE_USE = /[\uE000-\uF8FF\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]/gu;

/** Trimmed, inner whitespace collapsed, icon glyphs dropped, storable: the form labels are compared in. */
export function normaliseLabel(label: string): string {
  // Made storable too: a name read off a page may hold NUL or half an emoji, which nothing downstream
  // (memory, a recorded step) can keep.
  return storable(label).replace(PRIVATE_USE, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Whether a label may enter an identity: at least two letters, no digit of any script (which rules
 * out times, dates, prices, counts and digit runs at once, at the cost of names like "Step 1" —
 * better a weaker identity than one that changes with the data), no month or weekday word, no
 * currency sign, no URL or e-mail address, and short.
 */
export function isName(label: string): boolean {
  const s = normaliseLabel(label);
  if (s.length < 2 || s.length > MAX_NAME_LENGTH) return false;
  if ((s.match(LETTER) ?? []).length < 2) return false;
  if (DIGIT.test(s) || CURRENCY.test(s) || EMAIL.test(s) || URLISH.test(s) || DATE_WORD.test(s)) return false;
  return true;
}

/** Edit distance with transpositions (a typo that swaps two letters is one edit). */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
