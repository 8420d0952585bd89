// Forward-only migrations: numbered plain-SQL files, one transaction each, recorded with a
// checksum in simfleet_migrations. An advisory lock makes two gateways starting at once take
// turns: the second finds the work done. An applied file that changed, or a database that is
// newer than this code, stops the gateway instead of guessing.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Queryable } from './database.js';

/** pg_advisory_lock(key1, key2): 0x5f1ee7 is "simfleet"-ish; 1 is "migrations". */
const LOCK = [0x5f1ee7, 1] as const;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match) throw new MigrationError(`migration file ${file} is not named NNNN_name.sql`);
    const version = Number(match[1]);
    const expected = migrations.length + 1;
    if (version !== expected)
      throw new MigrationError(`migration ${file} should be number ${String(expected).padStart(4, '0')}: versions must run 0001, 0002, … without gaps`);
    const sql = await readFile(join(dir, file), 'utf8');
    migrations.push({ version, name: file, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

export interface MigrationStatus {
  applied: number;
  expected: number;
  pending: string[];
}

/** Applies what is pending; returns the names it applied (empty when up to date). */
export async function migrate(db: Database, migrations: Migration[]): Promise<string[]> {
  return db.session(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1, $2)', LOCK);
    try {
      await conn.exec(`create table if not exists simfleet_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now())`);
      const applied = await appliedMigrations(conn);
      verify(applied, migrations);
      const done: string[] = [];
      for (const m of migrations.filter((x) => !applied.has(x.version))) {
        await conn.exec('BEGIN');
        try {
          await conn.exec(m.sql);
          await conn.query('INSERT INTO simfleet_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
          await conn.exec('COMMIT');
        } catch (err) {
          await conn.exec('ROLLBACK').catch(() => undefined);
          throw new MigrationError(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        done.push(m.name);
      }
      return done;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1, $2)', LOCK);
    }
  });
}

export async function migrationStatus(db: Queryable, migrations: Migration[]): Promise<MigrationStatus> {
  const exists = await db.query<{ present: boolean }>("SELECT to_regclass('simfleet_migrations') IS NOT NULL AS present");
  const applied = exists.rows[0]?.present ? await appliedMigrations(db) : new Map<number, AppliedRow>();
  verify(applied, migrations);
  return {
    applied: applied.size,
    expected: migrations.length,
    pending: migrations.filter((m) => !applied.has(m.version)).map((m) => m.name),
  };
}

interface AppliedRow {
  name: string;
  checksum: string;
}

async function appliedMigrations(db: Queryable): Promise<Map<number, AppliedRow>> {
  const { rows } = await db.query<{ version: number; name: string; checksum: string }>(
    'SELECT version, name, checksum FROM simfleet_migrations ORDER BY version',
  );
  return new Map(rows.map((r) => [r.version, { name: r.name, checksum: r.checksum }]));
}

function verify(applied: Map<number, AppliedRow>, migrations: Migration[]): void {
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const [version, row] of applied) {
    const local = byVersion.get(version);
    if (!local) {
      throw new MigrationError(
        `the database has migration ${row.name}, which this simfleet does not know: it is older than the database; run the newer version`,
      );
    }
    if (local.checksum !== row.checksum) {
      throw new MigrationError(`migration ${local.name} changed after it was applied; migrations are immutable, add a new numbered file instead`);
    }
  }
}
