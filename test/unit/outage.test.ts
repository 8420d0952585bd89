// Telling a database outage (retry: the statement will succeed once Postgres is back) from a
// statement the database refused (never retry), and retrying through one within a deadline.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../server/db/database.js';
import { isOutage, throughOutage } from '../../server/db/outage.js';

const logger = pino({ level: 'silent' });
const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('database outages', () => {
  it('are told from refusals', () => {
    for (const e of [
      new DatabaseUnavailableError('no connection'),
      withCode('ECONNREFUSED'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('08006'),
      new Error('Connection terminated unexpectedly'),
    ])
      expect(isOutage(e), e.message).toBe(true);
    for (const e of [withCode('23505', 'duplicate key'), withCode('42P01', 'relation does not exist'), new Error('boom'), null])
      expect(isOutage(e)).toBe(false);
  });

  it('are retried until the statement goes through; a refusal is thrown at once', async () => {
    let calls = 0;
    const value = await throughOutage('t', async () => (++calls < 3 ? Promise.reject(withCode('ECONNREFUSED')) : 'done'), { withinMs: 5000, logger });
    expect([value, calls]).toEqual(['done', 3]);
    calls = 0;
    await expect(throughOutage('t', async () => (calls++, Promise.reject(withCode('23505', 'duplicate key'))), { withinMs: 5000, logger })).rejects.toThrow(
      'duplicate key',
    );
    expect(calls).toBe(1);
  });

  it('give up at the deadline with the outage error', async () => {
    const started = Date.now();
    await expect(throughOutage('t', () => Promise.reject(withCode('ECONNREFUSED', 'refused')), { withinMs: 400, logger })).rejects.toThrow('refused');
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
