// The embedded default: a real Postgres build running in-process (PGlite), persisted under the
// data dir. It is single-connection and single-process, so a pid lock keeps a second simfleet
// from opening the same files (two writers would corrupt them).
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { assertChannel, type Database, type Queryable, type QueryResult } from './database.js';

export class EmbeddedDatabaseInUseError extends Error {
  override readonly name = 'EmbeddedDatabaseInUseError';
}

export async function openEmbedded(dataDir: string): Promise<Database> {
  const dir = join(dataDir, 'pgdata');
  const lockPath = join(dataDir, 'pgdata.pid');
  await mkdir(dataDir, { recursive: true });
  await takeLock(lockPath);
  let db: PGlite;
  try {
    db = await PGlite.create(dir);
  } catch (err) {
    await rm(lockPath, { force: true });
    throw err;
  }

  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await q.query<R>(sql, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await q.exec(sql);
    },
  });

  let closed: Promise<void> | undefined;
  return {
    kind: 'embedded',
    location: dir,
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    session: (fn) => fn(wrap(db)),
    // In-process: nothing to reconnect, so onReconnect never fires.
    listen: async (channel, onPayload) => {
      assertChannel(channel);
      const unlisten = await db.listen(channel, onPayload);
      return async () => unlisten();
    },
    onReconnect: () => undefined,
    close: () =>
      (closed ??= (async () => {
        await db.close();
        await rm(lockPath, { force: true });
      })()),
  };
}

async function takeLock(lockPath: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new EmbeddedDatabaseInUseError(
          `the embedded database in ${lockPath.replace(/pgdata\.pid$/, '')} is in use by process ${holder}; ` +
            'stop that simfleet, or give this one its own SIMFLEET_DATA_DIR, or set DATABASE_URL',
        );
      }
      await rm(lockPath, { force: true }); // left behind by a process that died
    }
  }
  throw new EmbeddedDatabaseInUseError(`could not take the embedded database lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
