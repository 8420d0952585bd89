// A newcomer's first minute with `simfleet start` (issue 40): the banner says what this machine
// lacks and how to fix it, its `try:` line works as printed, and a CI job that leases as soon as
// the gateway answers gets a device instead of NO_MATCHING_DEVICE.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, spawnSimfleet, type SimfleetProcess, TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const sh = promisify(execFile);
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await killAll();
  await db?.drop();
});

async function start(env: Record<string, string | undefined>): Promise<{ p: SimfleetProcess; url: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'sf-first-'));
  // The default web device (SIMFLEET_WEB_DEVICES unset, as on a fresh machine).
  const p = spawnSimfleet(['start', '--port', '0'], { DATABASE_URL: db.url, SIMFLEET_WEB_DEVICES: undefined, ...env }, cwd);
  const url = (await p.waitForLog('listening', (l) => l.msg === 'gateway listening', 60_000)).url as string;
  return { p, url };
}

describe('the start banner on a machine without Chromium, with the admin token in SIMFLEET_ADMIN_TOKEN', () => {
  let p: SimfleetProcess;
  let url: string;
  let banner: string;
  beforeAll(async () => {
    ({ p, url } = await start({
      SIMFLEET_CHROMIUM: '/nonexistent/chromium',
      SIMFLEET_TESSERACT: '/nonexistent/tesseract',
      SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    }));
    await waitFor('the banner', () => p.stdout().includes('  try:') || undefined, 60_000);
    banner = p.stdout();
  }, 90_000);
  afterAll(() => p?.kill('SIGTERM'));

  it('says the web backend is unavailable, why, and the command that installs a browser', () => {
    expect(banner).toMatch(/^ {2}web: unavailable: SIMFLEET_CHROMIUM is \/nonexistent\/chromium, which is not an executable file$/m);
    expect(banner).toMatch(/^ {4}fix: sudo apt-get install -y chromium .*SIMFLEET_CHROMIUM/m);
  });

  it('answers a web session NO_MATCHING_DEVICE with why and the fix in the hint, not two calls away', async () => {
    const refused = await api(url, TEST_ADMIN_TOKEN).call('createSession', { body: { platform: 'web' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('NO_MATCHING_DEVICE');
    expect(refused.body.error.hint).toMatch(
      /^host \S+ cannot run web devices: SIMFLEET_CHROMIUM is \/nonexistent\/chromium, .*; fix: sudo apt-get install -y chromium/,
    );
  });

  it('summarises the host checks in one line, naming what the configured backends lack', () => {
    expect(banner).toMatch(/^ {2}host checks: \d+ of \d+ ok; LACKING chromium \(broken\), tesseract \(missing\); .*`simfleet doctor` says how to fix them$/m);
  });

  it('says once that text recognition is unavailable, with the command that installs it', () => {
    expect(banner).toMatch(/^ {2}text recognition: unavailable/m);
    expect(banner).toMatch(/^ {4}fix: sudo apt-get install -y tesseract-ocr tesseract-ocr-eng/m);
  });

  it('prints a try: line that works as printed in a shell that has SIMFLEET_ADMIN_TOKEN', async () => {
    const line = banner.split('\n').find((l) => l.startsWith('  try: '))!;
    expect(line).not.toContain('admin-token'); // no file was written: the token came from the environment
    const { stdout } = await sh('sh', ['-c', line.slice('  try: '.length)], { env: { PATH: process.env.PATH, SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
    const host = JSON.parse(stdout).hosts[0];
    expect(host.backends[0]).toMatchObject({ backend: 'web', available: false, hint: expect.stringContaining('chromium') });
    // Said once for the host, with how to install it, rather than in every outline.
    expect(host.textRecognition).toMatchObject({ available: false, hint: expect.stringContaining('apt-get install -y tesseract-ocr') });
    // The same checks `simfleet doctor` prints, as the worker ran them at start.
    expect(host.checks.find((c: { id: string }) => c.id === 'chromium')).toMatchObject({
      status: 'broken',
      needed: true,
      fix: expect.stringContaining('apt-get install -y chromium'),
    });
  });
});

describe('leasing at once after start (a CI job)', () => {
  it('queues a web session asked for at the first /healthz, and /readyz turns 200 only once the device has reported', async () => {
    const { p, url } = await start({ SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const admin = api(url, TEST_ADMIN_TOKEN);
    await waitFor('/healthz', async () => (await fetch(`${url}/healthz`)).status === 200 || undefined, 30_000, 20);
    const created = await admin.call('createSession', { body: { platform: 'web', waitSeconds: 120 } });
    expect(created.status, JSON.stringify(created.body)).toBeOneOf([201, 202]);

    // Every /readyz answer until the first 200: the device must be reported (not starting) by then.
    const answers: string[] = [];
    await waitFor(
      '/readyz 200',
      async () => {
        const res = await fetch(`${url}/readyz`);
        const body = (await res.json()) as { checks: { devices?: { detail: string } } };
        answers.push(`${res.status} ${body.checks.devices?.detail}`);
        return res.status === 200 || undefined;
      },
      60_000,
      20,
    );
    const devices = (await admin.call('listDevices')).body.devices;
    expect(devices).toHaveLength(1);
    expect(devices[0].state, JSON.stringify(devices[0])).not.toBe('broken');
    expect(answers.at(-1)).toBe('200 the local devices have reported');

    const ready = await waitFor(
      'the session ready',
      async () => {
        const s = (await admin.call('getSession', { params: { sessionId: created.body.id } })).body;
        if (s.state === 'ended') throw new Error(`ended: ${s.endReason} ${s.endDetail}`);
        return s.state === 'ready' ? s : undefined;
      },
      60_000,
    );
    expect(ready.device.model).toBe('iPhone 15 (web)');
    p.kill('SIGTERM');
    expect((await p.exited(30_000)).code).toBe(0);
  }, 120_000);
});
