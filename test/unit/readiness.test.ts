// /readyz is public: a database failure is named by its kind, never in the driver's words, which
// carry the server's address, the user and the database name.
import { describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.js';
import type { Migration } from '../../server/db/migrate.js';
import { checkReadiness, failureKind } from '../../server/readiness.js';

function failure(code: string | undefined, message: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe('readiness failure kinds', () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432', 'connection refused'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal.example', 'host name not resolved'],
    ['28P01', 'password authentication failed for user "simfleet_prod"', 'authentication refused'],
    ['3D000', 'database "farm_eu" does not exist', 'the database does not exist'],
    ['57P03', 'the database system is starting up', 'the server is starting up'],
    ['57P01', 'terminating connection due to administrator command', 'the server closed the connection (shutting down, or an administrator)'],
    [undefined, 'no answer within 2 s', 'no answer within 2 s'],
    ['XX000', 'internal error at 10.1.2.3 for farm_eu', 'connection failed (see the gateway log)'],
  ])('%s → %s', (code, message, kind) => {
    const said = failureKind(failure(code, message));
    expect(said).toBe(kind);
    for (const secret of ['10.1.2.3', 'simfleet_prod', 'farm_eu', 'db.internal']) expect(said).not.toContain(secret);
  });
});

describe('a pooled connection the server closed', () => {
  const migrations: Migration[] = [];
  /** A database whose statements fail with the given errors in turn, then answer. */
  function db(failures: Error[]): { db: Database; calls: () => number } {
    let calls = 0;
    const query = async () => {
      const err = failures[calls++];
      if (err) throw err;
      return { rows: [] };
    };
    return { db: { kind: 'postgres', query } as unknown as Database, calls: () => calls };
  }
  const terminated = () => failure('57P01', 'terminating connection due to administrator command');

  it('is not the database being unreachable: the next connection answers', async () => {
    const d = db([terminated()]);
    const r = await checkReadiness(d.db, migrations, true);
    expect(r.checks.database).toEqual({ ok: true, detail: 'postgres database reachable' });
    expect(d.calls()).toBeGreaterThanOrEqual(2);
  });

  it('says what the next connection met when it fails too, in its own words', async () => {
    const d = db([terminated(), failure('55000', 'database "farm_eu" is not currently accepting connections')]);
    const r = await checkReadiness(d.db, migrations, true);
    expect(r.checks.database).toEqual({ ok: false, detail: 'postgres database unreachable: the database is not accepting connections' });
  });

  it('tries once more only: a refusal is said at once', async () => {
    const d = db([failure('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432'), terminated()]);
    const r = await checkReadiness(d.db, migrations, true);
    expect(r.checks.database.detail).toBe('postgres database unreachable: connection refused');
    expect(d.calls()).toBe(1);
  });
});
