// /readyz is public: a database failure is named by its kind, never in the driver's words, which
// carry the server's address, the user and the database name.
import { describe, expect, it } from 'vitest';
import { failureKind } from '../../server/readiness.js';

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
    [undefined, 'no answer within 2 s', 'no answer within 2 s'],
    ['XX000', 'internal error at 10.1.2.3 for farm_eu', 'connection failed (see the gateway log)'],
  ])('%s → %s', (code, message, kind) => {
    const said = failureKind(failure(code, message));
    expect(said).toBe(kind);
    for (const secret of ['10.1.2.3', 'simfleet_prod', 'farm_eu', 'db.internal']) expect(said).not.toContain(secret);
  });
});
