// /readyz: the gateway can serve only if Postgres answers, the schema is current and it is not
// shutting down. When the database cannot be reached, the migration check says "unknown" rather
// than "not applied": those are different answers. /readyz is public (load balancers probe it), so
// a failure is named by its kind only; the driver's own words (addresses, user and database names)
// go to the log.
import type { Logger } from 'pino';
import type { Schemas } from '../openapi/contract.js';
import type { Database } from './db/database.js';
import { migrationStatus, type Migration } from './db/migrate.js';
import { devicesAwaited as awaitedOf } from './db/repositories/hosts.js';

export async function checkReadiness(
  db: Database,
  migrations: Migration[],
  accepting: boolean,
  logger?: Logger,
  localHost?: string,
): Promise<Schemas['Readiness']> {
  const checks: Schemas['Readiness']['checks'] = {
    database: { ok: false, detail: '' },
    migrations: { ok: false, detail: '' },
    accepting: { ok: accepting, detail: accepting ? 'accepting requests and workers' : 'shutting down' },
  };
  try {
    await withTimeout(selectOne(db), 2000, NO_ANSWER);
    checks.database = { ok: true, detail: `${db.kind} database reachable` };
  } catch (err) {
    logger?.warn({ err: (err as Error).message }, 'readiness: the database is unreachable');
    checks.database = { ok: false, detail: `${db.kind} database unreachable: ${failureKind(err)}` };
    checks.migrations = { ok: false, detail: 'unknown: the database is unreachable' };
  }
  if (checks.database.ok) {
    try {
      const status = await migrationStatus(db, migrations);
      checks.migrations =
        status.pending.length === 0
          ? { ok: true, detail: `${status.applied} of ${status.expected} applied` }
          : { ok: false, detail: `${status.applied} of ${status.expected} applied; pending: ${status.pending.join(', ')}` };
    } catch (err) {
      logger?.warn({ err: (err as Error).message }, 'readiness: the migration check failed');
      checks.migrations = { ok: false, detail: 'the migration check failed (see the gateway log)' };
    }
  }
  if (localHost !== undefined) checks.devices = await localDevices(db, localHost, checks.database.ok);
  const ready = checks.database.ok && checks.migrations.ok && checks.accepting.ok && (checks.devices?.ok ?? true);
  return { status: ready ? 'ready' : 'not-ready', checks };
}

/**
 * `simfleet start`: a CI job that leases as soon as /readyz says 200 must find the local devices
 * reported, not a farm still waiting for its own worker or a browser still booting.
 */
async function localDevices(db: Database, hostId: string, reachable: boolean): Promise<Schemas['Check']> {
  if (!reachable) return { ok: false, detail: 'unknown: the database is unreachable' };
  const awaited = await awaitedOf(db, hostId).catch(() => 'unknown: the check failed (see the gateway log)');
  return awaited ? { ok: false, detail: `waiting for the local devices: ${awaited}` } : { ok: true, detail: 'the local devices have reported' };
}

const NO_ANSWER = 'no answer within 2 s';

/** The kind of a connection failure, in words that name no address, user or database. */
export function failureKind(err: unknown): string {
  const { code, message } = err as { code?: string; message?: string };
  if (message === NO_ANSWER) return NO_ANSWER;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not resolved';
    case '57P03':
      return 'the server is starting up';
    case '57P01':
      return 'the server closed the connection (shutting down, or an administrator)';
    case '57P02':
      return 'the server is shutting down';
    case '55000':
      return 'the database is not accepting connections';
    case '53300':
      return 'too many connections';
    case '3D000':
      return 'the database does not exist';
  }
  if (code?.startsWith('28')) return 'authentication refused';
  return 'connection failed (see the gateway log)';
}

/**
 * A pooled connection the server has since closed (an administrator's terminate, a failover) fails
 * its next statement while the database takes new ones: that error says nothing about the
 * database. The pool drops such a connection, so the next attempt gets another (every idle one
 * may have been closed at once: a terminate of all of them), then a new one, which answers.
 */
async function selectOne(db: Database): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.query('SELECT 1');
      return;
    } catch (err) {
      if (!isClosedConnection(err) || attempt >= CLOSED_RETRIES) throw err;
    }
  }
}
const CLOSED_RETRIES = 20;

/** The connection went away under the statement, as opposed to the database refusing a new one. */
function isClosedConnection(err: unknown): boolean {
  const { code, message } = err as { code?: string; message?: string };
  return code === '57P01' || code === 'ECONNRESET' || code === 'EPIPE' || /Connection terminated/i.test(message ?? '');
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
