// An Android host end to end, on the doubles (no emulator runs here): a real gateway and a real
// worker process whose SIMFLEET_ADB is the fake adb and whose emulator console is the console
// double. A session is placed on the emulator, its screen is read from a real recorded dump, a tap
// by label lands and is judged, a permission is granted through the API, and a tap into a detached
// input service is judged not delivered.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleDouble } from '../doubles/android/console-server.js';
import { defaultState, initState, readState } from '../doubles/android/screen.mjs';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN, type GatewayProcess, type SimfleetProcess } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'e2e-console-token-1';
let db: TestDatabase;
let gateway: GatewayProcess;
let worker: SimfleetProcess | undefined;
let admin: ReturnType<typeof api>;
let agent: ReturnType<typeof api>;
let double: ConsoleDouble;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-android-host-'));
  double = await ConsoleDouble.start({ stateDir: dir, token: TOKEN });
  initState(dir, defaultState({ serial: `emulator-${double.port}` }));
  writeFileSync(join(dir, 'token'), TOKEN);
  const adb = join(dir, 'adb');
  writeFileSync(
    adb,
    `#!/bin/sh\nFAKE_ADB_STATE='${dir}' exec '${process.execPath}' '${fileURLToPath(new URL('../doubles/android/adb.mjs', import.meta.url))}' "$@"\n`,
  );
  chmodSync(adb, 0o755);

  db = await createTestDatabase();
  gateway = await startGatewayProcess({ DATABASE_URL: db.url });
  admin = api(gateway.url, TEST_ADMIN_TOKEN);
  const workerToken = (await admin.call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
  agent = api(gateway.url, (await admin.call('createToken', { body: { name: 'agent', role: 'agent', team: 'default' } })).body.secret);
  worker = await startWorkerProcess({
    SIMFLEET_GATEWAY_URL: gateway.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: mkdtempSync(join(tmpdir(), 'sf-android-worker-')),
    SIMFLEET_WEB_DEVICES: 'none',
    SIMFLEET_ADB: adb,
    SIMFLEET_EMULATOR_TOKEN_FILE: join(dir, 'token'),
    SIMFLEET_ANDROID_RESET: 'snapshot:clean',
  });
}, 120_000); // setup beside other suites on 2 cores can take over a minute
afterAll(async () => {
  // Stopped as a host is: its Android backend waits for the adb calls still running. Killed, it left
  // fake-adb calls writing into the doubles' folder as it was removed (ENOTEMPTY, in CI).
  worker?.kill('SIGTERM');
  await worker?.exited(20_000).catch(() => undefined);
  await killAll();
  await double?.close();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

describe('an Android host (fake adb and console double behind a real worker process)', () => {
  it('shows the backend and the emulator through the gateway', async () => {
    const device = await waitFor(
      'the emulator available',
      async () =>
        (await admin.call('listDevices')).body.devices.find((d: { platform: string; state: string }) => d.platform === 'android' && d.state === 'available'),
      20_000,
    );
    expect(device).toMatchObject({ platform: 'android', os: 'Android 14' });
    const host = (await admin.call('listHosts')).body.hosts[0];
    expect(host.backends).toEqual([
      expect.objectContaining({ backend: 'android', platform: 'android', available: true, detail: expect.stringMatching(/console/) }),
    ]);
    // What the worker checked at start, said in its hello: adb's recorded version, the token file it was given.
    const checks = new Map((host.checks as { id: string; status: string; needed: boolean; version?: string }[]).map((c) => [c.id, c]));
    expect(checks.get('adb')).toMatchObject({ status: 'ok', needed: true, version: '36.0.0-13206524 (adb 1.0.41)' });
    expect(checks.get('emulator-console-token')).toMatchObject({ status: 'ok', needed: true });
    expect(checks.get('chromium')).toMatchObject({ needed: false }); // no web devices on this host
    expect(checks.get('xcrun-simctl')).toMatchObject({ status: 'missing', needed: false });
  });

  it('places a session, reads the screen from the dump, taps by label and judges each tap', async () => {
    const created = (await agent.call('createSession', { body: { platform: 'android', app: { package: 'com.android.settings' }, waitSeconds: 60 } })).body;
    await waitFor(
      'session ready',
      async () => ((await agent.call('getSession', { params: { sessionId: created.id } })).body.state === 'ready' ? true : undefined),
      30_000,
    );
    expect(readState(dir).foreground).toBe('com.android.settings');

    const outline = (await agent.call('getScreen', { params: { sessionId: created.id } })).text;
    expect(outline).toContain('"Network & internet"');
    expect(outline).toMatch(/^android /);

    // A tap that reaches the app: the double moves to the row's screen, and the verdict says so.
    const went = await agent.call('runAction', { params: { sessionId: created.id }, body: { action: 'tap', target: 'Network & internet' } });
    expect(went.status, went.text.slice(0, 300)).toBe(200);
    expect(readState(dir).screen).toBe('network');
    // First time here: nothing to compare the outcome with, so "unverified", on the screen it named.
    expect(went.body.verdict).toBe('unverified');
    expect(went.body.evidence.after.name).toBe('Network & internet');
    expect(went.body.evidence.changed).toBe('yes');
    expect(went.body.app).toBe('com.android.settings');

    // A permission through the API: pm grant of each runtime permission behind the name that the
    // app requests (the Settings double asks for READ_CONTACTS, not WRITE_CONTACTS).
    const contacts = await agent.call('setPermission', { params: { sessionId: created.id }, body: { action: 'grant', permission: 'contacts' } });
    expect(contacts.status, contacts.text.slice(0, 300)).toBe(200);
    expect(contacts.body).toEqual({
      action: 'grant',
      permission: 'contacts',
      platform: 'android',
      app: 'com.android.settings',
      applied: ['android.permission.READ_CONTACTS'],
      skipped: ['android.permission.WRITE_CONTACTS'],
    });
    expect(readState(dir).permissions?.['com.android.settings']?.['android.permission.READ_CONTACTS']?.granted).toBe(true);
    const camera = await agent.call('setPermission', { params: { sessionId: created.id }, body: { action: 'grant', permission: 'camera' } });
    expect(camera.status).toBe(422);
    expect(camera.body.error).toMatchObject({ code: 'PERMISSION_UNSUPPORTED', message: expect.stringContaining('requests none of android.permission.CAMERA') });

    // The input service detaches: the tap is accepted, nothing changes, and Android cannot count
    // inputs, so the verdict is the honest one: it may not have been delivered.
    writeFileSync(join(dir, 'input-detached'), '');
    const after = (await agent.call('getScreen', { params: { sessionId: created.id }, headers: { accept: 'application/json' } })).body;
    const label = after.elements.find((e: { label: string; role: string }) => e.label && e.role !== 'text' && e.role !== 'heading')?.label as string;
    expect(label).toBeTruthy();
    const lost = await agent.call('runAction', { params: { sessionId: created.id }, body: { action: 'tap', target: label } });
    expect(lost.status, lost.text.slice(0, 300)).toBe(200);
    expect(lost.body.verdict).toBe('not-delivered');
    expect(lost.body.reason).toMatch(/may not have been delivered/);
    expect(readState(dir).screen).toBe('network');
    rmSync(join(dir, 'input-detached'));

    // Release: the reset policy restores the snapshot through the console.
    await agent.call('releaseSession', { params: { sessionId: created.id } });
    await waitFor(
      'device reset to the snapshot',
      () => (readState(dir).foreground !== 'com.android.settings' && Object.values(readState(dir).data).every((d) => d === 'clean')) || undefined,
      20_000,
    );
  });
});
