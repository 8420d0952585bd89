// A Postgres server of the test's own (initdb in a temporary directory, its own port): for tests
// that restart the database (the shared server serves suites running in parallel and must not go
// down under them), and for the whole run when no server is configured or reachable
// (test-postgres.ts). Uses the machine's Postgres server binaries, which the test setup step
// installs (test/setup/host.ts); as root it runs them as the postgres user, as initdb refuses root.
import { execFile } from 'node:child_process';
import { access, chmod, chown, constants, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
  /** Its data, socket and log. */
  dir: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

export const POSTGRES_INSTALL_HINT =
  'install the Postgres server binaries (Debian/Ubuntu: `sudo apt-get install -y postgresql`; macOS: `brew install postgresql@17`); `node --import tsx test/setup/host.ts` does it';

const has = (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

/** Newest first: "17" before "16", "postgresql@17" before "postgresql@16". */
const newestFirst = (names: string[]) => names.sort((a, b) => Number(b.replace(/\D+/g, '')) - Number(a.replace(/\D+/g, '')));

/**
 * The folder holding initdb and pg_ctl: Debian's /usr/lib/postgresql/N/bin, Homebrew's
 * postgresql@N, then the PATH. Undefined when the machine has none.
 */
export async function findPostgresBin(pathVar = process.env.PATH): Promise<string | undefined> {
  const listed = async (dir: string) => readdir(dir).catch(() => [] as string[]);
  const candidates = [
    ...newestFirst(await listed('/usr/lib/postgresql')).map((v) => `/usr/lib/postgresql/${v}/bin`),
    ...['/opt/homebrew/opt', '/usr/local/opt'].flatMap((root) => [`${root}/postgresql/bin`]),
    ...(
      await Promise.all(
        ['/opt/homebrew/opt', '/usr/local/opt'].map(async (root) =>
          newestFirst((await listed(root)).filter((n) => /^postgresql@\d+$/.test(n))).map((n) => `${root}/${n}/bin`),
        ),
      )
    ).flat(),
    ...(pathVar ?? '').split(delimiter).filter(Boolean),
  ];
  for (const dir of candidates) if ((await has(join(dir, 'initdb'))) && (await has(join(dir, 'pg_ctl')))) return dir;
  return undefined;
}

async function binDir(): Promise<string> {
  const dir = await findPostgresBin();
  if (!dir) throw new Error(`no Postgres server binaries (initdb, pg_ctl) on this machine: ${POSTGRES_INSTALL_HINT}`);
  return dir;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDir();
  const dir = await mkdtemp(join(tmpdir(), 'sf-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    await chmod(dir, 0o700);
  }
  const as = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args));
  await as(`${bin}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (action: string, more: string[] = []) => as(`${bin}/pg_ctl`, ['-D', data, '-w', '-t', '30', ...more, action]);
  await ctl('start', ['-o', opts, '-l', join(dir, 'log')]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  // Ready for queries, not merely accepting connections.
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.end();
  return {
    url,
    dir,
    // -l even on restart: without it the server inherits pg_ctl's stdout and the pipe never closes.
    restart: () => ctl('restart', ['-m', 'fast', '-o', opts, '-l', join(dir, 'log')]).then(() => undefined),
    stop: () => ctl('stop', ['-m', 'immediate']).then(() => undefined),
    dispose: async () => {
      await ctl('stop', ['-m', 'immediate']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
