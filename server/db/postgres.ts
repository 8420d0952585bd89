// A Postgres server through `pg`: the only module in simfleet that imports `pg`.
import pg from 'pg';
import type { Logger } from 'pino';
import { assertChannel, DatabaseUnavailableError, type Database, type Queryable, type QueryResult } from './database.js';
import { PgListener } from './pg-listener.js';

const INT8_OID = 20;

export interface PostgresOptions {
  url: string;
  poolSize: number;
  applicationName: string;
  logger: Logger;
}

export function openPostgres(opts: PostgresOptions): Database {
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      // Counts and bigserial ids fit in a double; PGlite returns numbers too.
      if (oid === INT8_OID) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    application_name: opts.applicationName,
    // A burst waits for a connection rather than failing; past this it is a 503 NOT_READY.
    connectionTimeoutMillis: 15000,
    idleTimeoutMillis: 30000,
    types,
  });
  // An idle client losing its server emits here; without a listener it would crash the process.
  // pg attaches the whole client to this error; its message is what a reader needs.
  pool.on('error', (err) => opts.logger.warn({ err: err.message }, 'idle postgres connection failed'));
  // Every client of the pool is always heard. pg-pool takes its own listener off a client as it hands
  // it out, and `pool.connect()` resolves a tick later: a release and a server's FATAL read from one
  // TCP chunk (a restart under load) emitted the error in that gap, unheard, and ended the gateway.
  // The client is dead either way; its next statement fails and is treated as an outage.
  pool.on('connect', (client) => client.on('error', (err) => opts.logger.debug({ err: err.message }, 'postgres connection failed')));

  const wrap = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await client.query(sql, params as unknown[] | undefined).catch((err: Error & { code?: string }) => {
        // A pool that cannot hand out a connection (or a server gone) is not the query's fault.
        if (!err.code && client === pool) throw new DatabaseUnavailableError(`no database connection: ${err.message}`, { cause: err });
        throw err;
      });
      return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  });

  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((err: Error) => {
      throw new DatabaseUnavailableError(`no database connection: ${err.message}`, { cause: err });
    });
    let broken: Error | undefined;
    // A connection that dies between two statements of a transaction emits here rather than on a
    // query; unheard, that would crash the process.
    const onError = (err: Error) => {
      broken = err;
      opts.logger.warn({ err: err.message }, 'postgres connection failed while in use');
    };
    client.on('error', onError);
    try {
      return await fn(client);
    } catch (err) {
      // A connection-level failure must not go back into the pool.
      if (!(err as { code?: string }).code) broken = err as Error;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  };

  const listener = new PgListener(() => new pg.Client({ connectionString: opts.url, application_name: `${opts.applicationName}-listen`, types }), opts.logger);

  let closed: Promise<void> | undefined;
  return {
    kind: 'postgres',
    location: redact(opts.url),
    ...wrap(pool),
    transaction: (fn) =>
      withClient(async (client) => {
        await client.query('BEGIN');
        try {
          const result = await fn(wrap(client));
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    session: (fn) => withClient((client) => fn(wrap(client))),
    listen: (channel, onPayload) => {
      assertChannel(channel);
      return listener.listen(channel, onPayload);
    },
    onReconnect: (l) => listener.onReconnect(l),
    close: () => (closed ??= Promise.all([listener.close(), pool.end()]).then(() => undefined)),
  };
}

/** A database URL fit for a log line: its password starred, or `fallback` when it is no URL. */
export function redact(url: string, fallback = 'postgres'): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return fallback;
  }
}
