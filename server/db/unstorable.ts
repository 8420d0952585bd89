// Strings Postgres cannot store: a NUL character (text columns and JSON both refuse it) and an
// unpaired UTF-16 surrogate (it has no UTF-8 form; JSON refuses its escape). Whatever reaches the
// database from outside, a client's body or a worker's message, is checked with this first, so
// the refusal names the field instead of the database failing the whole statement.

// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (or key) holding an unstorable character; undefined when none does. */
export function firstUnstorable(value: unknown): string | undefined {
  // Iterative: a body nested thousands deep must not overflow the stack here.
  const stack: { v: unknown; at: string }[] = [{ v: value, at: '' }];
  while (stack.length) {
    const { v, at } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return at;
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => {
        stack.push({ v: x, at: at ? `${at}[${i}]` : `[${i}]` });
      });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) return at ? `${at}.${k}` : k;
        stack.push({ v: x, at: at ? `${at}.${k}` : k });
      }
    }
  }
  return undefined;
}

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/**
 * A copy with every string (keys too) made storable: NUL removed, a lone half of a pair as U+FFFD.
 * For what simfleet itself writes from a device's screen (a recorded step's labels), where the text
 * is evidence to keep, not input to refuse.
 */
export function storableCopy<T>(value: T): T {
  const fix = (s: string) => s.replace(UNSTORABLE_ALL, (c) => (c === '\u0000' ? '' : '\uFFFD'));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
