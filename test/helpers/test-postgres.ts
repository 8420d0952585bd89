// Which Postgres server the tests use, chosen once before any test (global-setup.ts):
// 1. SIMFLEET_TEST_DATABASE_URL when it is set (it must answer: a configured server that does not
//    is an error that says so, never silently replaced);
// 2. else the conventional postgres://postgres@127.0.0.1:5432/test when it answers;
// 3. else a throwaway server of the run's own (private-postgres.ts: initdb in a temporary
//    directory, a free port), stopped and removed when the run ends.
import pg from 'pg';
import { POSTGRES_INSTALL_HINT, privatePostgres } from './private-postgres.js';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export class TestPostgresError extends Error {
  override readonly name = 'TestPostgresError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(`${message}\n  hint: ${hint}`);
  }
}

export interface TestPostgres {
  url: string;
  source: 'configured' | 'default' | 'throwaway';
  /** Why it is this one, in a line. */
  note: string;
  /** A throwaway server's directory (data, socket, log). */
  dir?: string;
  /** Stops a throwaway server and removes its directory; nothing for a server the run did not start. */
  stop(): Promise<void>;
}

/** Connects and runs a query: undefined when the server answers, else why not. */
export async function unreachable(url: string, timeoutMs = 5000): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    const e = err as Error & { code?: string };
    return e.message || e.code || String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A URL without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export async function ensureTestPostgres(env: NodeJS.ProcessEnv = process.env, defaultUrl = DEFAULT_TEST_DATABASE_URL): Promise<TestPostgres> {
  const configured = env.SIMFLEET_TEST_DATABASE_URL;
  const none = async () => undefined;
  if (configured) {
    const why = await unreachable(configured);
    if (why) {
      throw new TestPostgresError(
        `Postgres is not reachable at ${shown(configured)} (SIMFLEET_TEST_DATABASE_URL): ${why}`,
        'start that server, or unset SIMFLEET_TEST_DATABASE_URL and the tests use 127.0.0.1:5432 or start a throwaway server of their own',
      );
    }
    return { url: configured, source: 'configured', note: `SIMFLEET_TEST_DATABASE_URL (${shown(configured)})`, stop: none };
  }
  const whyNotDefault = await unreachable(defaultUrl);
  if (!whyNotDefault) return { url: defaultUrl, source: 'default', note: `the server at ${shown(defaultUrl)}`, stop: none };
  let own: Awaited<ReturnType<typeof privatePostgres>>;
  try {
    own = await privatePostgres();
  } catch (err) {
    throw new TestPostgresError(
      `Postgres is not reachable at ${shown(defaultUrl)} (${whyNotDefault}), and a throwaway server could not be started: ${(err as Error).message.split('\n')[0]}`,
      `${POSTGRES_INSTALL_HINT}; or start a server and set SIMFLEET_TEST_DATABASE_URL`,
    );
  }
  return {
    url: own.url,
    dir: own.dir,
    source: 'throwaway',
    note: `a throwaway server at ${own.url} (${shown(defaultUrl)}: ${whyNotDefault})`,
    stop: () => own.dispose(),
  };
}
