// A fresh database on the real Postgres server with every migration applied, opened as the gateway
// opens one: where tests of simfleet's SQL start. Close `db`, then drop `tdb`, afterwards.
import { pino } from 'pino';
import type { Database } from '../../server/db/database.js';
import { migrate, readMigrations } from '../../server/db/migrate.js';
import { openPostgres } from '../../server/db/postgres.js';
import { migrationsDir } from '../../server/paths.js';
import { createTestDatabase, type TestDatabase } from './db.js';

export async function migratedDatabase(applicationName: string): Promise<{ tdb: TestDatabase; db: Database }> {
  const tdb = await createTestDatabase();
  const db = openPostgres({ url: tdb.url, poolSize: 2, applicationName, logger: pino({ level: 'silent' }) });
  await migrate(db, await readMigrations(migrationsDir));
  return { tdb, db };
}
