// Before any test: the build the process tests spawn must exist, and a Postgres server must answer:
// the configured one, the one on 127.0.0.1:5432, or a throwaway server of the run's own
// (test-postgres.ts), whose URL the test files inherit through SIMFLEET_TEST_DATABASE_URL.
import { existsSync } from 'node:fs';
import { ensureTestPostgres } from './test-postgres.js';

export default async function setup(): Promise<() => Promise<void>> {
  if (!existsSync(new URL('../../dist/server/cli/main.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)');
  }
  const postgres = await ensureTestPostgres();
  // Set before the test workers start, so each inherits it (helpers/db.ts reads it).
  process.env.SIMFLEET_TEST_DATABASE_URL = postgres.url;
  if (postgres.source === 'throwaway') process.stderr.write(`test Postgres: ${postgres.note}\n`);
  return () => postgres.stop();
}
