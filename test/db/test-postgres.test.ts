// The test run's own Postgres: a configured server that does not answer stops the run with what to
// do; no server at the conventional address gives the run a throwaway server of its own, which is
// gone when the run ends.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { ADMIN_URL } from '../helpers/db.js';
import { ensureTestPostgres, TestPostgresError, unreachable } from '../helpers/test-postgres.js';

const run = promisify(execFile);

/** A port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('the test run finding its Postgres', () => {
  it('refuses a configured server that does not answer, saying where it looked and what to do', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const err = await ensureTestPostgres({ SIMFLEET_TEST_DATABASE_URL: url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TestPostgresError);
    expect((err as TestPostgresError).message).toContain(`Postgres is not reachable at ${url} (SIMFLEET_TEST_DATABASE_URL): connect ECONNREFUSED`);
    expect((err as TestPostgresError).hint).toMatch(/start that server, or unset SIMFLEET_TEST_DATABASE_URL/);
  });

  it('uses the server at the conventional address when it answers, and starts nothing', async () => {
    const pg = await ensureTestPostgres({}, ADMIN_URL);
    expect(pg).toMatchObject({ url: ADMIN_URL, source: 'default' });
  });

  it('starts a throwaway server when nothing answers at the conventional address, and removes it at the end', async () => {
    const nothing = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const pg = await ensureTestPostgres({}, nothing);
    try {
      expect(pg.source).toBe('throwaway');
      expect(existsSync(pg.dir!)).toBe(true);
      expect(pg.note).toContain(`${nothing}: connect ECONNREFUSED`);
      expect(await unreachable(pg.url)).toBeUndefined();
      // What each test file does with it: a database of its own.
      const admin = new Client({ connectionString: pg.url });
      await admin.connect();
      await admin.query('CREATE DATABASE sf_test_throwaway');
      await admin.query('DROP DATABASE sf_test_throwaway');
      await admin.end();
    } finally {
      await pg.stop();
    }
    expect(await unreachable(pg.url, 2000)).toMatch(/ECONNREFUSED/);
    expect(existsSync(pg.dir!)).toBe(false);
  }, 90_000);

  it('stops `npm test` before any test with the same error and hint when the configured server is a closed port', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const result = await run('npx', ['vitest', 'run', '--project', 'fast', 'test/unit/text-clip.test.ts'], {
      env: { ...process.env, SIMFLEET_TEST_DATABASE_URL: url, CI: '1' },
      timeout: 120_000,
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
    expect(result.code).not.toBe(0);
    expect(result.out).toContain(`Postgres is not reachable at ${url} (SIMFLEET_TEST_DATABASE_URL)`);
    expect(result.out).toContain('hint: start that server, or unset SIMFLEET_TEST_DATABASE_URL');
    expect(result.out).not.toMatch(/Test Files .* passed/);
  }, 150_000);
});
