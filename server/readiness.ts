// /readyz: the gateway can serve only if Postgres answers, the schema is current and it is not
// shutting down. When the database cannot be reached, the migration check says "unknown" rather
// than "not applied": those are different answers.
import type { Schemas } from '../openapi/contract.js';
import type { Database } from './db/database.js';
import { migrationStatus, type Migration } from './db/migrate.js';

export async function checkReadiness(db: Database, migrations: Migration[], accepting: boolean): Promise<Schemas['Readiness']> {
  const checks: Schemas['Readiness']['checks'] = {
    database: { ok: false, detail: '' },
    migrations: { ok: false, detail: '' },
    accepting: { ok: accepting, detail: accepting ? 'accepting requests and workers' : 'shutting down' },
  };
  try {
    await withTimeout(db.query('SELECT 1'), 2000, 'no answer within 2 s');
    checks.database = { ok: true, detail: `${db.kind} database reachable` };
  } catch (err) {
    checks.database = { ok: false, detail: `${db.kind} database unreachable: ${(err as Error).message}` };
    checks.migrations = { ok: false, detail: 'unknown: the database is unreachable' };
  }
  if (checks.database.ok) {
    try {
      const status = await migrationStatus(db, migrations);
      checks.migrations = status.pending.length === 0
        ? { ok: true, detail: `${status.applied} of ${status.expected} applied` }
        : { ok: false, detail: `${status.applied} of ${status.expected} applied; pending: ${status.pending.join(', ')}` };
    } catch (err) {
      checks.migrations = { ok: false, detail: (err as Error).message };
    }
  }
  const ready = checks.database.ok && checks.migrations.ok && checks.accepting.ok;
  return { status: ready ? 'ready' : 'not-ready', checks };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
