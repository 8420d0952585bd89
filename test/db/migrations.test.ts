// Migrations against the real Postgres server and against the embedded one.
import { cp, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.js';
import { EmbeddedDatabaseInUseError, openEmbedded } from '../../server/db/embedded.js';
import { migrate, migrationStatus, MigrationError, readMigrations } from '../../server/db/migrate.js';
import { openPostgres } from '../../server/db/postgres.js';
import * as tokens from '../../server/db/repositories/tokens.js';
import { migrationsDir } from '../../server/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess } from '../helpers/processes.js';

const silent = pino({ level: 'silent' });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await killAll();
  while (cleanups.length) await cleanups.pop()!();
});

async function freshPostgres(): Promise<{ tdb: TestDatabase; open: () => Database }> {
  const tdb = await createTestDatabase();
  cleanups.push(() => tdb.drop());
  const open = () => {
    const db = openPostgres({ url: tdb.url, poolSize: 3, applicationName: 'test', logger: silent });
    cleanups.push(() => db.close());
    return db;
  };
  return { tdb, open };
}

describe('migrations on a Postgres server', () => {
  it('applies every file once, then finds nothing to do', async () => {
    const { open } = await freshPostgres();
    const db = open();
    const migrations = await readMigrations(migrationsDir);
    expect(await migrate(db, migrations)).toEqual(migrations.map((m) => m.name));
    expect(await migrate(db, migrations)).toEqual([]);
    expect(await migrationStatus(db, migrations)).toEqual({ applied: migrations.length, expected: migrations.length, pending: [] });
  });

  it('lets two runners on separate connections migrate one database at the same moment', async () => {
    const { tdb, open } = await freshPostgres();
    const migrations = await readMigrations(migrationsDir);
    const results = await Promise.all([migrate(open(), migrations), migrate(open(), migrations), migrate(open(), migrations)]);
    expect(results.flat().sort()).toEqual(migrations.map((m) => m.name).sort()); // each applied exactly once
    const rows = await tdb.query<{ version: number }>('SELECT version FROM simfleet_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
  });

  it('lets two gateway processes start on one fresh database at the same moment', async () => {
    const { tdb } = await freshPostgres();
    const [a, b] = await Promise.all([startGatewayProcess({ DATABASE_URL: tdb.url }), startGatewayProcess({ DATABASE_URL: tdb.url })]);
    for (const gw of [a, b]) {
      const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { status: string };
      expect(ready.status).toBe('ready');
    }
    const errors = [...a.logs, ...b.logs].filter((l) => (l.level as number) >= 50);
    expect(errors).toEqual([]);
    const tables = await tdb.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'hosts'`);
    expect(tables[0]!.n).toBe(1);
    const admins = await tdb.query<{ n: number }>(`SELECT count(*)::int AS n FROM tokens WHERE role = 'admin'`);
    expect(admins[0]!.n).toBe(1); // both registered the same SIMFLEET_ADMIN_TOKEN once
  });

  it('refuses to run when an applied migration file was edited', async () => {
    const { open } = await freshPostgres();
    const db = open();
    const migrations = await readMigrations(migrationsDir);
    await migrate(db, migrations);
    const edited = migrations.map((m, i) => (i === 0 ? { ...m, checksum: 'f'.repeat(64) } : m));
    await expect(migrate(db, edited)).rejects.toThrow(/changed after it was applied/);
    await expect(migrationStatus(db, edited)).rejects.toBeInstanceOf(MigrationError);
  });

  it('refuses to run against a database migrated by a newer simfleet', async () => {
    const { open } = await freshPostgres();
    const db = open();
    const migrations = await readMigrations(migrationsDir);
    await migrate(db, migrations);
    await expect(migrate(db, migrations.slice(0, -1))).rejects.toThrow(/older than the database/);
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    const { tdb, open } = await freshPostgres();
    const dir = await mkdtemp(join(tmpdir(), 'sf-mig-'));
    await cp(migrationsDir, dir, { recursive: true });
    const next = String((await readMigrations(dir)).length + 1).padStart(4, '0');
    await writeFile(join(dir, `${next}_broken.sql`), 'create table half_done (id int);\nselect * from no_such_table;\n');
    await expect(migrate(open(), await readMigrations(dir))).rejects.toThrow(/broken\.sql failed/);
    expect(await tdb.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half_done'`)).toEqual([]);
    expect(await tdb.query(`SELECT 1 FROM simfleet_migrations WHERE name LIKE '%broken%'`)).toEqual([]);
  });

  it('refuses migration files that skip a number', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-mig-'));
    await writeFile(join(dir, '0001_a.sql'), 'select 1;');
    await writeFile(join(dir, '0003_c.sql'), 'select 1;');
    await expect(readMigrations(dir)).rejects.toThrow(/should be number 0002/);
  });
});

describe('the embedded database (PGlite)', () => {
  it('runs the same migrations and the same repository queries', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-embedded-'));
    const db = await openEmbedded(dir);
    cleanups.push(() => db.close());
    const migrations = await readMigrations(migrationsDir);
    expect(await migrate(db, migrations)).toEqual(migrations.map((m) => m.name));
    expect(await migrate(db, migrations)).toEqual([]);
    const row = await tokens.insertToken(db, { id: 'tok_embedded01', name: 'n', role: 'viewer', team: 'default', secretHash: 'h'.repeat(64), createdBy: null });
    expect(row.created_at).toBeInstanceOf(Date);
    expect((await tokens.findTokenBySecretHash(db, 'h'.repeat(64)))?.id).toBe('tok_embedded01');
    expect(await tokens.countActiveAdmins(db)).toBe(0);
    expect((await tokens.revokeToken(db, 'tok_embedded01'))?.revoked_at).toBeInstanceOf(Date);
  });

  it('keeps its data across a close and reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-embedded-'));
    const first = await openEmbedded(dir);
    await migrate(first, await readMigrations(migrationsDir));
    await tokens.insertToken(first, { id: 'tok_persisted1', name: 'n', role: 'agent', team: 't', secretHash: 'p'.repeat(64), createdBy: null });
    await first.close();
    const second = await openEmbedded(dir);
    cleanups.push(() => second.close());
    expect((await tokens.getToken(second, 'tok_persisted1'))?.team).toBe('t');
  });

  it('refuses a second open of the same data dir while the first is alive', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-embedded-'));
    const db = await openEmbedded(dir);
    cleanups.push(() => db.close());
    await writeFile(join(dir, 'pgdata.pid'), String(process.ppid)); // a live process that is not us
    await expect(openEmbedded(dir)).rejects.toBeInstanceOf(EmbeddedDatabaseInUseError);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-embedded-'));
    await writeFile(join(dir, 'pgdata.pid'), '999999999');
    const db = await openEmbedded(dir);
    cleanups.push(() => db.close());
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });
});
