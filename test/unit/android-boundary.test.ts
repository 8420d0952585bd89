// The Android backend at the platform boundary, against its doubles (no emulator can run here): the
// shared conformance suite with the console double and with adb alone, then what is Android's own
// (dp→px, the reset policies, app launching, text and keys, discovery and status).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceError, type AppTarget } from '../../workers/devices/backend.js';
import type { ResetPolicy } from '../../workers/devices/android/apps.js';
import type { AndroidDevice } from '../../workers/devices/android/device.js';
import { AndroidProvider } from '../../workers/devices/android/provider.js';
import { pinch, tap } from '../../workers/devices/gestures.js';
import { describeBoundary } from '../helpers/boundary.js';
import { waitFor } from '../helpers/wait.js';
import { androidRig, type Rig } from '../doubles/android/rig.js';
import { LAUNCHER, nextScreen } from '../doubles/android/screen.mjs';

const SETTINGS = 'com.android.settings';
const DENSITY = 420 / 160;
const app: AppTarget = { package: SETTINGS };
const origins = { allowedOrigins: ['*'], allowPrivate: false };
const signal = () => AbortSignal.timeout(20_000);

for (const withConsole of [true, false]) {
  describeBoundary({
    name: `android (adb + console doubles${withConsole ? '' : ': console port refused, adb only'})`,
    platform: 'android',
    source: 'uiautomator',
    app,
    permissions: { settable: 'location', unsettable: 'reminders' },
    setup: async () => {
      const rig = await androidRig({ console: withConsole });
      return {
        provider: rig.provider,
        localId: rig.serial,
        close: rig.close,
        double: {
          changeScreen: async () => void rig.update(nextScreen),
          lastTouchPt: async () => {
            const px = rig.lastDownPx();
            return px ? { x: px.x / DENSITY, y: px.y / DENSITY } : null;
          },
          disconnectInput: () => writeFileSync(join(rig.dir, 'input-detached'), ''),
          dirty: async () => void rig.update((s) => (s.data[SETTINGS] = 'dirty')),
          isClean: async () => {
            const s = rig.state();
            return s.data[SETTINGS] === 'clean' && s.foreground !== SETTINGS;
          },
          permissionState: async () => {
            const p = rig.state().permissions?.[SETTINGS]?.['android.permission.ACCESS_FINE_LOCATION'];
            return p?.granted ? 'granted' : p?.userSet ? 'denied' : 'prompt';
          },
        },
      };
    },
  });
}

async function readyDevice(rig: Rig): Promise<AndroidDevice> {
  await rig.provider.start();
  return waitFor(
    'the emulator ready',
    async () => (await rig.provider.discover()).some((d) => d.health === 'ready') && rig.provider.device(rig.serial),
    10_000,
  );
}

// Each group below drives a pretend emulator of its own, so the groups run side by side; the steps
// inside a group run in order (`step`), each building on the device the last one left. Their
// emulators are built as the file loads: the conformance suites above spend most of their time
// watching a still screen, and every fake adb call costs a Node start-up of CPU.
const step = it.sequential;
const sideBySide = { concurrent: true } as const;

/** A pretend emulator of the group's own, ready, with the session's app prepared unless told not to. */
function groupDevice(withConsole: boolean, opts: { reset?: ResetPolicy; prepare?: boolean; apkDir?: string } = {}): { rig: Rig; device: AndroidDevice } {
  const built = (async () => {
    const rig = await androidRig({ console: withConsole, ...(opts.reset ? { reset: opts.reset } : {}), ...(opts.apkDir ? { apkDir: opts.apkDir } : {}) });
    const device = await readyDevice(rig);
    if (opts.prepare !== false) await device.prepare(app, { signal: signal(), origins });
    return { rig, device };
  })();
  built.catch(() => undefined); // reported by beforeAll, not as an unhandled rejection
  const g = {} as { rig: Rig; device: AndroidDevice };
  beforeAll(async () => void Object.assign(g, await built));
  afterAll(async () => (await built.catch(() => null))?.rig.close());
  return g;
}

describe('the Android device with the console', sideBySide, () => {
  const g = groupDevice(true);

  step('turns dp into device pixels at density 420 (2.625 px per dp)', async () => {
    expect(g.device.screen()).toEqual({ widthPt: 411.43, heightPt: 822.86, scale: 2.625 });
    await g.device.touch(tap({ x: 100, y: 200 }));
    expect(g.rig.lastDownPx()).toEqual({ x: 263, y: 525 });
    await g.device.touch(tap({ x: 411, y: 0.4 }));
    expect(g.rig.lastDownPx()).toEqual({ x: 1079, y: 1 });
    expect(g.rig.commands()).toContain('console event mouse 1079 1 0 1');
  });

  step('types text with spaces and quotes intact and presses keys by their Android codes', async () => {
    await g.device.type("it's 50% done; %s stays");
    await g.device.key('Enter');
    const typed = g.rig
      .commands()
      .filter((l) => l.startsWith('typed '))
      .map((l) => JSON.parse(l.slice(6)) as string);
    expect(typed.join('')).toBe("it's 50% done; %s stays");
    expect(g.rig.commands()).toContain('key KEYCODE_ENTER');
    await expect(g.device.type('naïve')).rejects.toThrow(/printable ASCII only/);
  });

  step('reports console screenshots as its frame source, and what a capture and a uiautomator dump cost', async () => {
    await g.device.probe();
    await g.device.tree();
    const { detail } = await g.rig.provider.status();
    expect(detail).toContain('Android Debug Bridge version 1.0.41');
    expect(detail).toContain(`${g.rig.serial}: console screenshots`);
    expect(detail).toMatch(/capture median [\d.]+ ms/);
    expect(detail).toMatch(/uiautomator dump median \d+ ms/);
  });

  step('plays several fingers as multi-touch through the console', async () => {
    await g.device.touch(pinch({ x: 200, y: 400 }, 1.5, { durationMs: 64 }));
    expect(g.rig.commands().some((l) => l.startsWith('console event send 3:47:0 3:57:0'))).toBe(true);
  });

  step('knows the app in front and its version once the reading settles', async () => {
    await g.device.refreshForeground();
    expect(g.device.foreground()).toBe(SETTINGS);
    expect(g.device.appVersion()).toBe('14');
    await g.device.key('Home');
    await g.device.refreshForeground();
    expect(g.device.foreground()).toBe(LAUNCHER);
    await g.device.launch();
  });

  step("wipes the session app's data on reset (am force-stop, then pm clear) and goes home", async () => {
    g.rig.update((s) => (s.data[SETTINGS] = 'dirty'));
    await g.device.reset(signal());
    expect(g.rig.commands()).toContain(`adb -s ${g.rig.serial} shell am force-stop '${SETTINGS}' && pm clear '${SETTINGS}'; input keyevent KEYCODE_HOME`);
    expect(g.rig.state()).toMatchObject({ foreground: LAUNCHER, data: { [SETTINGS]: 'clean' } });
    await g.device.prepare(app, { signal: signal(), origins });
  });

  step('refuses a session that names a url or a bundle id, and an app that cannot be launched', async () => {
    const url = await g.device.prepare({ url: 'https://example.com/' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(url).toMatchObject({ code: 'VALIDATION_FAILED', hint: expect.stringContaining('app.package') });
    const missing = await g.device.prepare({ package: 'com.example.absent' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(missing).toMatchObject({ code: 'APP_UNREACHABLE', message: expect.stringContaining('not installed') });
    const noLauncher = await g.device.prepare({ package: 'com.android.providers.contacts' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(noLauncher).toMatchObject({ code: 'APP_UNREACHABLE', message: expect.stringContaining('No activities found to run') });
    await g.device.prepare(app, { signal: signal(), origins });
  });

  step("opens web links within the farm's origin rules, and says when nothing handles a link", async () => {
    await g.device.open('https://93.184.215.14/');
    await expect(g.device.open('http://127.0.0.1:8080/')).rejects.toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    await expect(g.device.open('file:///sdcard/secret.txt')).rejects.toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    await expect(g.device.open('nosuchapp://open')).rejects.toMatchObject({
      code: 'APP_UNREACHABLE',
      message: expect.stringContaining('unable to resolve Intent'),
    });
  });
});

describe('the Android device through adb alone (console port refused), reset by snapshot', sideBySide, () => {
  const g = groupDevice(false, { reset: 'snapshot:clean', prepare: false });

  step('taps through input tap, in device pixels', async () => {
    await g.device.touch(tap({ x: 100, y: 200 }));
    expect(g.rig.lastDownPx()).toEqual({ x: 263, y: 525 });
    expect(g.rig.commands()).toContain(`adb -s ${g.rig.serial} shell input tap 263 525`);
  });

  step('reports adb screencap polling as its frame source', async () => {
    await g.device.probe();
    expect((await g.rig.provider.status()).detail).toContain(`${g.rig.serial}: adb screencap polling, capture median`);
  });

  step('refuses a several-finger gesture, saying it needs the console', async () => {
    const err = await g.device.touch(pinch({ x: 200, y: 400 }, 1.5, { durationMs: 64 })).catch((e: DeviceError) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect(err).toMatchObject({
      message: expect.stringContaining('2-finger gesture needs the emulator console'),
      hint: expect.stringContaining('consoleTokenFile'),
    });
  });

  step('fails a prepare and a reset that need the console for the snapshot, saying what to do', async () => {
    for (const attempt of [() => g.device.prepare(app, { signal: signal(), origins }), () => g.device.reset(signal())]) {
      const err = await attempt().catch((e: DeviceError) => e);
      expect(err).toMatchObject({
        code: 'DEVICE_FAILED',
        message: expect.stringContaining('loads snapshot "clean" through the emulator console, which is not available'),
        hint: expect.stringContaining('"clear"'),
      });
    }
  });
});

describe('the snapshot reset policy', sideBySide, () => {
  const g = groupDevice(true, { reset: 'snapshot:clean' });

  step('loads the named snapshot through the console, which puts back the whole device', async () => {
    g.rig.update((s) => {
      s.data['com.google.android.deskclock'] = 'dirty';
      s.data[SETTINGS] = 'dirty';
    });
    await g.device.reset(signal());
    expect(g.rig.commands().filter((l) => l === 'console avd snapshot load clean')).toHaveLength(2); // the prepare's, the reset's
    expect(g.rig.commands().some((l) => l.includes('pm clear'))).toBe(false);
    expect(g.rig.state()).toMatchObject({ foreground: LAUNCHER, data: { [SETTINGS]: 'clean', 'com.google.android.deskclock': 'clean' } });
  });
});

describe('the Android provider', sideBySide, () => {
  step('offers emulators only; reports one going offline as broken, with why, ready again when back, and gone when unlisted', async () => {
    const rig = await androidRig({ console: false, discoverMs: 200 });
    try {
      // An unauthorized phone beside it: only emulators are offered, the rest counted and left alone.
      rig.update((s) => s.devices.push({ ...s.devices[0]!, serial: '984e71340418728d', state: 'unauthorized', transportId: 2 }));
      await readyDevice(rig);
      expect((await rig.provider.status()).detail).toContain('1 other device(s) ignored');
      expect(await rig.provider.discover()).toHaveLength(1);
      const [found] = await rig.provider.discover();
      expect(found).toMatchObject({
        platform: 'android',
        backend: 'android',
        model: 'sdk_gphone64_x86_64',
        os: 'Android 14',
        labels: ['emulator', 'Pixel_7_API_34'],
        name: `Pixel_7_API_34 (${rig.serial})`,
      });
      let changes = 0;
      rig.provider.onChange(() => changes++);
      rig.update((s) => (s.devices[0]!.state = 'offline'));
      const broken = await waitFor('offline seen', async () => (await rig.provider.discover()).find((d) => d.health === 'broken'), 15_000);
      expect(broken.reason).toContain('offline');
      rig.update((s) => (s.devices[0]!.state = 'device'));
      await waitFor('ready again', async () => (await rig.provider.discover()).some((d) => d.health === 'ready'), 15_000);
      expect(changes).toBeGreaterThanOrEqual(2);
      rig.update((s) => (s.devices = []));
      await waitFor('gone from the list', async () => (await rig.provider.discover()).length === 0, 15_000);
    } finally {
      await rig.close();
    }
  });

  step('says adb is missing and how to get it', async () => {
    const provider = new AndroidProvider({ adb: '/nonexistent/adb', reset: 'clear', logger: pino({ level: 'silent' }) });
    await provider.start();
    expect(await provider.status()).toEqual({
      backend: 'android',
      platform: 'android',
      available: false,
      detail: 'adb was not found at /nonexistent/adb',
      hint: 'install Android platform-tools (Debian: apt-get install adb) or set SIMFLEET_ADB',
    });
    expect(await provider.discover()).toEqual([]);
    await provider.close();
  });
});

describe("an app the emulator does not have, from the host's APK folder", sideBySide, () => {
  const apks = mkdtempSync(join(tmpdir(), 'simfleet-apks-'));
  writeFileSync(join(apks, 'org.example.notes.apk'), 'fake-apk package=org.example.notes\n');
  writeFileSync(join(apks, 'com.example.broken.apk'), 'this is no APK\n');
  const g = groupDevice(false, { prepare: false, apkDir: apks });
  const notes = { package: 'org.example.notes' };
  const installs = () => g.rig.commands().filter((c) => / install /.test(c));

  step('installs it with adb install -r, then clears and launches it; a later session finds it installed', async () => {
    expect(g.rig.state().installed ?? []).toEqual([]);
    await g.device.prepare(notes, { signal: signal(), origins });
    expect(installs()).toEqual([`adb -s ${g.rig.serial} install -r ${join(apks, 'org.example.notes.apk')}`]);
    expect(g.rig.state()).toMatchObject({ installed: ['org.example.notes'], foreground: 'org.example.notes' });
    await g.device.reset(signal());
    await g.device.prepare(notes, { signal: signal(), origins });
    expect(installs()).toHaveLength(1);
  });

  step("refuses with adb's reason when the file is no APK, names the folder when it holds none, and takes no path for a package", async () => {
    const broken = await g.device.prepare({ package: 'com.example.broken' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(broken).toMatchObject({
      code: 'APP_UNREACHABLE',
      message: expect.stringContaining('INSTALL_PARSE_FAILED_NOT_APK'),
      details: { reason: expect.stringMatching(/^INSTALL_PARSE_FAILED_NOT_APK: /) },
    });
    const absent = await g.device.prepare({ package: 'com.example.absent' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(absent).toMatchObject({ code: 'APP_UNREACHABLE', message: expect.stringContaining('not installed'), hint: expect.stringContaining(apks) });
    const path = await g.device.prepare({ package: '../../etc/passwd' }, { signal: signal(), origins }).catch((e: DeviceError) => e);
    expect(path).toMatchObject({ code: 'APP_UNREACHABLE', message: expect.stringContaining('not an Android package name') });
    expect(installs()).toHaveLength(2); // the broken one was tried; the absent and the path were not
  });
});

describe("the session app's runtime permissions", sideBySide, () => {
  const g = groupDevice(false);
  const perms = () => g.rig.state().permissions?.[SETTINGS] ?? {};

  step('grants those behind the name the app requests, skips the rest, and refuses a name it requests none of', async () => {
    const contacts = await g.device.setPermission({ action: 'grant', permission: 'contacts' });
    expect(contacts).toMatchObject({ app: SETTINGS, applied: ['android.permission.READ_CONTACTS'], skipped: ['android.permission.WRITE_CONTACTS'] });
    expect(perms()['android.permission.READ_CONTACTS']).toEqual({ granted: true, userSet: true });
    const camera = await g.device.setPermission({ action: 'grant', permission: 'camera' }).catch((e: unknown) => e);
    expect(camera).toBeInstanceOf(DeviceError);
    expect(camera).toMatchObject({
      code: 'PERMISSION_UNSUPPORTED',
      message: expect.stringContaining(`${SETTINGS} requests none of android.permission.CAMERA`),
    });
    expect(perms()['android.permission.CAMERA']).toBeUndefined();
    // One adb call per permission, so one refusal is never read as another's.
    expect(g.rig.commands().filter((l) => l.includes('pm grant'))).toEqual([
      `adb -s ${g.rig.serial} shell pm grant 'com.android.settings' android.permission.READ_CONTACTS`,
      `adb -s ${g.rig.serial} shell pm grant 'com.android.settings' android.permission.WRITE_CONTACTS`,
      `adb -s ${g.rig.serial} shell pm grant 'com.android.settings' android.permission.CAMERA`,
    ]);
  });

  step('revokes always-on location without the foreground grant, says a revoke stops the app, and resets the choice', async () => {
    await g.device.setPermission({ action: 'grant', permission: 'location' });
    const always = await g.device.setPermission({ action: 'revoke', permission: 'location-always' }).catch((e: unknown) => e);
    // The app asks for foreground location only: there is no background permission to take away.
    expect(always).toMatchObject({ code: 'PERMISSION_UNSUPPORTED' });
    expect(perms()['android.permission.ACCESS_FINE_LOCATION']).toEqual({ granted: true, userSet: true });
    const revoked = await g.device.setPermission({ action: 'revoke', permission: 'location' });
    expect(revoked.note).toMatch(/stops the app/);
    const reset = await g.device.setPermission({ action: 'reset', permission: 'location' });
    expect(reset.applied).toEqual(['android.permission.ACCESS_FINE_LOCATION', 'android.permission.ACCESS_COARSE_LOCATION']);
    expect(perms()['android.permission.ACCESS_FINE_LOCATION']).toEqual({ granted: false, userSet: false });
    expect(g.rig.commands()).toContain(
      `adb -s ${g.rig.serial} shell pm clear-permission-flags 'com.android.settings' android.permission.ACCESS_FINE_LOCATION user-set user-fixed`,
    );
  });

  step('refuses on a device with no session app, naming how to start one', async () => {
    await g.device.reset(signal());
    await g.device.prepare(null, { signal: signal(), origins });
    await expect(g.device.setPermission({ action: 'grant', permission: 'location' })).rejects.toMatchObject({
      code: 'PERMISSION_UNSUPPORTED',
      message: expect.stringContaining('app.package'),
    });
  });
});
