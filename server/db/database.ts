// The boundary between simfleet and its SQL engine. Two implementations: a real Postgres server
// through `pg` (postgres.ts) and an embedded Postgres running in-process (embedded.ts, PGlite).
// Both run the same migrations and the same queries; repositories see only these interfaces.

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /** One statement with $n parameters. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Where the data lives, for logs (never contains a password). */
  readonly location: string;
  /** Runs fn inside BEGIN … COMMIT on one connection; rolls back if fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs fn on one connection without an implicit transaction (advisory locks). */
  session<T>(fn: (conn: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel ([a-z0-9_] only). Notifications sent while the listener is reconnecting are
   * lost, so every user of this also has a periodic or timed fallback; `onReconnect` says when to resync.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

export function assertChannel(channel: string): void {
  if (!/^[a-z0-9_]{1,63}$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
}

/** The database could not be reached or could not hand out a connection in time. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

/** SQLSTATE of a database error, if it is one. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
