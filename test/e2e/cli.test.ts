// The simfleet command as a user runs it: `start` on a fresh data dir (embedded Postgres),
// `token` against a running gateway, `migrate`, and usage errors with exit code 2.
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createTestDatabase } from '../helpers/db.js';
import { killAll, spawnSimfleet, startGatewayProcess, TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

afterAll(() => killAll());

describe('simfleet start (the laptop default)', () => {
  it('serves /healthz, lists its local host with a web device on the sample app, and hands out the admin token once', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'sf-start-'));
    const startedAt = Date.now();
    // The default: one iPhone-sized web device (SIMFLEET_WEB_DEVICES unset, as on a fresh machine).
    const first = spawnSimfleet(['start', '--port', '0'], { SIMFLEET_WEB_DEVICES: undefined }, cwd);
    const listening = await first.waitForLog('listening', (l) => l.msg === 'gateway listening', 30_000);
    const url = listening.url as string;
    await waitFor('/healthz', async () => (await fetch(`${url}/healthz`)).status === 200 || undefined, 30_000);
    const healthyAfterMs = Date.now() - startedAt;
    expect(healthyAfterMs).toBeLessThan(30_000);

    const tokenFile = join(cwd, '.simfleet', 'admin-token');
    const secret = (await readFile(tokenFile, 'utf8')).trim();
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    await waitFor('banner', () => first.stdout().includes('local host:') || undefined);
    expect(first.stdout()).toContain(secret); // printed once, on this first start

    const hosts = (await api(url, secret).call('listHosts')).body.hosts;
    expect(hosts).toHaveLength(1);
    expect(hosts[0]).toMatchObject({ state: 'online', connected: true, deviceCount: 1 });
    expect(hosts[0].backends).toEqual([expect.objectContaining({ backend: 'web', available: true })]);
    const hostId = hosts[0].id;
    await waitFor(
      'web device available',
      async () => ((await api(url, secret).call('listDevices')).body.devices[0]?.state === 'available' ? true : undefined),
      20_000,
    );
    expect((await api(url, secret).call('listDevices')).body.devices[0]).toMatchObject({ backend: 'web', platform: 'web', model: 'iPhone 15 (web)' });

    // A second simfleet on the same data dir must not open the same embedded database.
    const clash = spawnSimfleet(['start', '--port', '0'], {}, cwd);
    expect((await clash.exited(30_000)).code).toBe(1);
    expect(clash.stderr()).toMatch(/in use by process \d+/);

    first.kill('SIGTERM');
    expect((await first.exited()).code).toBe(0);

    // Restart: same farm, same host, no new admin secret printed.
    const again = spawnSimfleet(['start', '--port', '0', '--web-devices', 'none', '--fake-devices', '2'], {}, cwd);
    const url2 = (await again.waitForLog('listening', (l) => l.msg === 'gateway listening', 30_000)).url as string;
    await waitFor('banner', () => again.stdout().includes('local host:') || undefined);
    expect(again.stdout()).not.toContain(secret);
    expect(again.stdout()).toContain(`admin token: in ${tokenFile}`);
    const after = (await api(url2, secret).call('getHost', { params: { hostId } })).body;
    expect(after).toMatchObject({ state: 'online', connected: true });
    again.kill('SIGTERM');
    expect((await again.exited()).code).toBe(0);
  });
});

describe('simfleet token, migrate and usage errors', () => {
  it('creates, lists and revokes tokens through a running gateway', async () => {
    const db = await createTestDatabase();
    try {
      const gw = await startGatewayProcess({ DATABASE_URL: db.url });
      const env = { SIMFLEET_GATEWAY_URL: gw.url, SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
      const create = spawnSimfleet(['token', 'create', '--role', 'agent', '--team', 'qa', '--name', 'nightly'], env);
      expect((await create.exited()).code).toBe(0);
      const secret = create.stdout().trim();
      expect(secret).toMatch(/^sf_/);
      const me = (await api(gw.url, secret).call('getWhoami')).body;
      expect(me).toMatchObject({ role: 'agent', team: 'qa', name: 'nightly' });

      const list = spawnSimfleet(['token', 'list'], env);
      expect((await list.exited()).code).toBe(0);
      expect(list.stdout()).toContain(`${me.id}\tagent\tqa\tactive\tnightly`);

      const revoke = spawnSimfleet(['token', 'revoke', me.id], env);
      expect((await revoke.exited()).code).toBe(0);
      expect((await api(gw.url, secret).call('getWhoami')).status).toBe(401);

      const refused = spawnSimfleet(['token', 'create', '--role', 'emperor', '--name', 'x'], env);
      expect((await refused.exited()).code).toBe(1);
      expect(refused.stderr()).toContain('VALIDATION_FAILED: body.role must be one of');
      gw.kill('SIGTERM');
      await gw.exited();
    } finally {
      await db.drop();
    }
  });

  it('migrates a database and reports its status', async () => {
    const db = await createTestDatabase();
    try {
      const status = spawnSimfleet(['migrate', '--status'], { DATABASE_URL: db.url });
      expect((await status.exited()).code).toBe(1);
      expect(status.stdout()).toMatch(/0 of \d+ applied; pending: 0001_foundation\.sql/);
      const run = spawnSimfleet(['migrate'], { DATABASE_URL: db.url });
      expect((await run.exited()).code).toBe(0);
      expect(run.stdout()).toContain('applied: 0001_foundation.sql');
      const again = spawnSimfleet(['migrate', '--status'], { DATABASE_URL: db.url });
      expect((await again.exited()).code).toBe(0);
    } finally {
      await db.drop();
    }
  });

  it.each([
    [['gateway'], { SIMFLEET_PORT: '99999' }, 'invalid setting SIMFLEET_PORT (flag --port): must be <= 65535'],
    [['gateway', '--prot', '1'], {}, "Unknown option '--prot'"],
    [['worker'], {}, 'a worker needs the gateway URL and a worker token'],
    [['worker', '--gateway', 'nowhere', '--token', 'sf_abcdefghijklmnopqrstu'], {}, 'invalid setting SIMFLEET_GATEWAY_URL (flag --gateway)'],
    [['launch'], {}, 'unknown command "launch"'],
  ] as const)('simfleet %j exits 2 explaining what is wrong', async (args, env, message) => {
    const p = spawnSimfleet([...args], env);
    expect((await p.exited()).code).toBe(2);
    expect(p.stderr()).toContain(message);
  });
});
