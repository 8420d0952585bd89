// Text cut to a length, and text made fit to store. Labels come from pages and apps nobody here
// wrote: an emoji label cut at a fixed count of UTF-16 units kept half of its last emoji, and
// Postgres refuses half a surrogate pair (as it refuses NUL) in text and in JSON. A memory write
// holding one was refused, and, retried behind every later write, stopped a worker's memory.

// eslint-disable-next-line no-control-regex
const MAYBE_UNSTORABLE = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** At most `max` UTF-16 units, never ending on the first half of a surrogate pair. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = max > 0 && isHighSurrogate(s.charCodeAt(max - 1)) ? max - 1 : max;
  return s.slice(0, end);
}

/** Cut to `max` units in all, an ellipsis included, when it is longer. */
export function ellipsize(s: string, max: number): string {
  return s.length > max ? `${clip(s, max - 1)}…` : s;
}

/** The text with NUL removed and each half of a surrogate pair standing alone replaced by U+FFFD. */
export function storable(s: string): string {
  if (!MAYBE_UNSTORABLE.test(s)) return s; // nearly every label: one scan, no copy
  return s.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\uFFFD');
}

/** The same over a message: every string in it, keys included, made storable (a copy; the input is kept). */
export function storableDeep<T>(value: T): T {
  if (typeof value === 'string') return storable(value) as T;
  if (Array.isArray(value)) return value.map(storableDeep) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storableDeep(v)])) as T;
  return value;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
