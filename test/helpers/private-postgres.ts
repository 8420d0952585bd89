// A Postgres server of the test's own (initdb in a temporary directory, its own port), for tests
// that restart the database: the shared server on 5432 serves suites running in parallel and must
// not go down under them. Uses the Debian binaries .ci/run installs; as root it runs them as the
// postgres user, as initdb refuses root.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function binDir(): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (Debian postgresql package)');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
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
    // -l even on restart: without it the server inherits pg_ctl's stdout and the pipe never closes.
    restart: () => ctl('restart', ['-m', 'fast', '-o', opts, '-l', join(dir, 'log')]).then(() => undefined),
    stop: () => ctl('stop', ['-m', 'immediate']).then(() => undefined),
  };
}
