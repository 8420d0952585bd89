// Strings Postgres cannot store, refused at the door: a NUL character (text columns reject it) and
// an unpaired UTF-16 surrogate (it has no UTF-8 form). Found by the fuzzing suite, where a token
// named "\u0000" (and a flow list asked for app "\u0000") reached the database and came back as
// a 500; now it is a 400 naming the field.
import type { FastifyInstance } from 'fastify';
import { firstUnstorable } from '../db/unstorable.js';
import { ApiError } from '../errors.js';

export function installTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    for (const [where, value] of [
      ['body', req.body],
      ['query', req.query],
      ['path', req.params],
    ] as const) {
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
