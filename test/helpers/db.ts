// A fresh database per test file on the real Postgres server, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_TEST_DATABASE_URL } from './test-postgres.js';

/** The server global-setup.ts chose (it sets SIMFLEET_TEST_DATABASE_URL for the run). */
export const ADMIN_URL = process.env.SIMFLEET_TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;

export interface TestDatabase {
  name: string;
  url: string;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `sf_test_${randomBytes(6).toString('hex')}`;
  await admin(async (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // DROP … WITH (FORCE) terminates whatever is still connected; that is the point of it.
  pool.on('error', () => undefined);
  return {
    name,
    url: url.toString(),
    query: async (sql, params) => (await pool.query(sql, params)).rows,
    drop: async () => {
      await pool.end();
      await admin(async (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
