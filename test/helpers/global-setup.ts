// Before any test: the build the process tests spawn must exist, and Postgres must answer.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { ADMIN_URL } from './db.js';

export default async function setup(): Promise<void> {
  if (!existsSync(new URL('../../dist/server/cli/main.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)');
  }
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`Postgres is not reachable at ${ADMIN_URL} (${(err as Error).message}); start it or set SIMFLEET_TEST_DATABASE_URL`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
