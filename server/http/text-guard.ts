// Strings Postgres cannot store, refused at the door: a NUL character (text columns reject it) and
// an unpaired UTF-16 surrogate (it has no UTF-8 form). Found by the fuzzing suite, where a token
// named "\u0000" (and a flow list asked for app "\u0000") reached the database and came back as
// a 500; now it is a 400 naming the field.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    for (const [where, value] of [['body', req.body], ['query', req.query], ['path', req.params]] as const) {
      const bad = firstUnstorable(value);
      if (bad === undefined) continue;
      throw new ApiError('VALIDATION_FAILED', {
        message: `${where}${bad ? `.${bad}` : ''} holds a character that cannot be stored (NUL, or half of a surrogate pair)`,
        hint: 'send text as valid UTF-8 without NUL characters',
        details: { in: where, field: bad, reason: 'unstorable character' },
      });
    }
  });
}

/** The path of the first string (or key) holding an unstorable character; undefined when none does. */
function firstUnstorable(value: unknown): string | undefined {
  // Iterative: a body nested thousands deep must not overflow the stack here.
  const stack: { v: unknown; at: string }[] = [{ v: value, at: '' }];
  while (stack.length) {
    const { v, at } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return at;
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, at: at ? `${at}[${i}]` : `[${i}]` }));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) return at ? `${at}.${k}` : k;
        stack.push({ v: x, at: at ? `${at}.${k}` : k });
      }
    }
  }
  return undefined;
}
