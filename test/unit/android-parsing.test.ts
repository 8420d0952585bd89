// The Android backend reads adb's and the platform's text output; these are the readings, checked on
// recorded real outputs (test/doubles/android/fixtures/README.md says where each came from).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Adb, shellQuote } from '../../workers/devices/android/adb.js';
import { screencap } from '../../workers/devices/android/capture.js';
import { setAndroidPermission } from '../../workers/devices/android/permissions.js';
import { emulatorPort, parseDevicesList, stateHealth } from '../../workers/devices/android/devices-list.js';
import { keyCommand, textCommands } from '../../workers/devices/android/keys-text.js';
import {
  amStartFailure,
  installFailure,
  monkeyFailure,
  parseResumedPackage,
  parseVersionName,
  parseWmDensity,
  parseWmSize,
  pmPermissionRefusal,
  pngSize,
  uiDumpXml,
} from '../../workers/devices/android/shell-output.js';
import { androidPermissions, supportedOn } from '../../workers/devices/permissions.js';
import { adbStrokeCommand, strokes } from '../../workers/devices/android/touch.js';
import { withScreenSize } from '../../workers/devices/android/tree.js';
import { drag, longPress, swipe, tap } from '../../workers/devices/gestures.js';
import { decodeInputText } from '../doubles/android/screen.mjs';

/** The conformance corpus's recorded outputs (test/fixtures/device-outputs/README.md). */
const recorded = (name: string) => readFileSync(new URL(`../fixtures/device-outputs/${name}`, import.meta.url));
const fixture = (name: string) => readFileSync(new URL(`../doubles/android/fixtures/${name}`, import.meta.url), 'utf8');

describe('adb devices -l, read', () => {
  it('reads an emulator line from a real listing: serial, state, product, model, device, transport id, console port', () => {
    expect(parseDevicesList(fixture('devices-l-emulator.txt'))).toEqual([
      {
        serial: 'emulator-5554',
        state: 'device',
        stateDetail: '',
        product: 'sdk_gphone64_x86_64',
        model: 'sdk_gphone64_x86_64',
        device: 'emu64xa',
        transportId: 1,
        emulatorPort: 5554,
      },
    ]);
  });

  it('reads an unauthorized phone beside an emulator, and only the emulator has a console port', () => {
    const [phone, emulator] = parseDevicesList(fixture('devices-l-unauthorized-phone.txt'));
    expect(phone).toMatchObject({ serial: '984e71340418728d', state: 'unauthorized', transportId: 2, emulatorPort: null });
    expect(emulator).toMatchObject({ serial: 'emulator-5554', state: 'device', model: 'Android_SDK_built_for_x86', emulatorPort: 5554 });
    expect(stateHealth(phone!)).toMatchObject({ ready: false, reason: expect.stringContaining('unauthorized') });
  });

  it('reads the short form with tabs and with spaces, offline beside device', () => {
    expect(parseDevicesList(fixture('devices-offline.txt'))).toMatchObject([{ serial: 'emulator-5554', state: 'offline' }]);
    const both = parseDevicesList(fixture('devices-offline-and-device.txt'));
    expect(both.map((d) => [d.serial, d.state])).toEqual([
      ['emulator-5554', 'offline'],
      ['emulator-5556', 'device'],
    ]);
    expect(stateHealth(both[0]!)).toMatchObject({ ready: false, reason: expect.stringContaining('offline') });
    expect(stateHealth(both[1]!)).toEqual({ ready: true });
  });

  it('reads an unauthorized emulator among devices', () => {
    const list = parseDevicesList(fixture('devices-unauthorized-emulator.txt'));
    expect(list.map((d) => `${d.serial}:${d.state}`)).toEqual([
      'emulator-5558:device',
      'fc74d864:device',
      'emulator-5556:unauthorized',
      'emulator-5554:device',
    ]);
    expect(list.filter((d) => d.emulatorPort !== null)).toHaveLength(3);
  });

  it('keeps the help adb gives with "no permissions"', () => {
    const [d] = parseDevicesList(fixture('devices-no-permissions.txt'));
    expect(d).toMatchObject({ serial: 'eb9f484b', state: 'no permissions' });
    expect(d!.stateDetail).toContain('missing udev rules');
    expect(stateHealth(d!)).toMatchObject({ ready: false, reason: expect.stringContaining('udev') });
  });

  it('skips what adb says about its own server, and a list with nothing attached is empty', () => {
    const text = `* daemon not running; starting now at tcp:5037\n* daemon started successfully\n${fixture('devices-l-emulator.txt')}`;
    expect(parseDevicesList(text)).toHaveLength(1);
    expect(parseDevicesList('List of devices attached\n\n')).toEqual([]);
  });

  it('takes a console port only from an emulator serial', () => {
    expect(emulatorPort('emulator-5580')).toBe(5580);
    expect(emulatorPort('192.168.1.5:5555')).toBeNull();
    expect(emulatorPort('emulator-5554-x')).toBeNull();
  });
});

describe('wm size and wm density, read', () => {
  it('takes the physical size and density when nothing overrides them', () => {
    expect(parseWmSize(fixture('wm-size-physical.txt'))).toEqual({ width: 720, height: 1600 });
    expect(parseWmDensity(fixture('wm-density-physical.txt'))).toBe(300);
  });

  it('takes the override when one is set: that is what the screen is drawn at', () => {
    expect(parseWmSize(fixture('wm-size-override.txt'))).toEqual({ width: 720, height: 1600 });
    expect(parseWmDensity(fixture('wm-density-override.txt'))).toBe(320);
  });

  it('says so when the window manager printed no size', () => {
    expect(() => parseWmSize("Error: Can't connect to window manager; is the system running?\n")).toThrow(/did not print a size: Error: Can't connect/);
  });
});

describe('dumpsys, read', () => {
  it('finds the resumed app in an API 36 dump (topResumedActivity, decimal record id), not the paused one behind it', () => {
    expect(parseResumedPackage(fixture('dumpsys-activity-api36.txt'))).toBe('com.workspacebrowser');
  });

  it('finds it in an old per-stack dump (mResumedActivity)', () => {
    expect(parseResumedPackage(fixture('dumpsys-activity-android5.txt'))).toBe('com.xtc.watch');
  });

  it('knows nothing is resumed when the stacks say null', () => {
    expect(parseResumedPackage(fixture('dumpsys-activity-asleep.txt'))).toBeNull();
  });

  it('reads versionName from a real dumpsys package, and null for a package that is not there', () => {
    expect(parseVersionName(fixture('dumpsys-package-lufthansa.txt'), 'com.lufthansa.android.lufthansa')).toBe('4.7.1');
    expect(parseVersionName('Unable to find package: com.nope\n', 'com.nope')).toBeNull();
  });

  it('tells monkey launching an app from monkey finding nothing to launch', () => {
    expect(monkeyFailure(fixture('monkey-launched.txt'))).toBeNull();
    expect(monkeyFailure(fixture('monkey-no-activities.txt'))).toMatch(/no launcher activity/);
    expect(monkeyFailure('** SYS_KEYS has no physical keys but with factor 2.0%.\n')).toMatch(/SYS_KEYS/);
  });

  it('reads am start refusing a link', () => {
    expect(amStartFailure(fixture('am-start-unresolved.txt'))).toBe('Error: Activity not started, unable to resolve Intent');
    expect(amStartFailure('Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/ }\n')).toBeNull();
  });
});

describe('uiautomator dump /dev/tty, read', () => {
  it("cuts the XML out of what precedes and follows it, including AOSP's misspelt status line", () => {
    const xml = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node bounds=\"[0,0][10,10]\" /></hierarchy>";
    expect(uiDumpXml(`${xml}UI hierchary dumped to: /dev/tty\n`)).toBe(xml);
    expect(uiDumpXml(`UI hierchary dumped to: /dev/tty\n${xml}\n`)).toBe(xml);
  });

  it('says what uiautomator printed instead of a hierarchy', () => {
    expect(() => uiDumpXml('ERROR: could not get idle state.\n')).toThrow(/printed no hierarchy: ERROR: could not get idle state/);
    expect(() => uiDumpXml('UI hierchary dumped to: /dev/tty\n')).toThrow(/printed no hierarchy$/);
  });

  it('adds the screen size a plain uiautomator dump leaves out, turned when the dump says the screen is rotated', () => {
    const size = { width: 1080, height: 2160 };
    expect(withScreenSize('<hierarchy rotation="0"><node/></hierarchy>', size)).toBe('<hierarchy rotation="0" width="1080" height="2160"><node/></hierarchy>');
    expect(withScreenSize('<hierarchy rotation="1">', size)).toBe('<hierarchy rotation="1" width="2160" height="1080">');
    expect(withScreenSize('<hierarchy rotation="0"/>', size)).toBe('<hierarchy rotation="0" width="1080" height="2160"/>');
    // Appium's page source states it already: left alone.
    expect(withScreenSize('<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2088">', size)).toBe(
      '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2088">',
    );
  });

  it('takes the PNG after the warning a multi-display device prints first (recorded), and leaves a clean capture alone', async () => {
    const adb = (file: string) => ({ execOut: async () => recorded(file) }) as unknown as Adb;
    const warnings: string[] = [];
    const shot = await screencap(adb('screencap.multi-display-warning-prefix.bin'), 'emulator-5554', (w) => warnings.push(w));
    expect(shot.size).toEqual({ width: 4, height: 4 });
    expect(shot.data.subarray(0, 4).toString('latin1')).toBe('\x89PNG');
    expect(warnings).toEqual([expect.stringMatching(/^\[Warning\] Multiple displays were found, but no display id was specified! Defaulting/)]);
    expect((await screencap(adb('screencap.clean.bin'), 'emulator-5554')).data).toEqual(recorded('screencap.clean.bin'));
    // Text alone, with no PNG after it, is still refused with what the device said.
    const refused = await screencap({ execOut: async () => Buffer.from('[Warning] Multiple displays were found\n') } as unknown as Adb, 'x').catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: 'DEVICE_FAILED', message: expect.stringMatching(/is not a PNG: \[Warning\] Multiple displays/) });
  });

  it("reads a PNG's size from its header and refuses what is not a PNG", () => {
    const header = Buffer.from('89504e470d0a1a0a0000000d49484452000004380000087000', 'hex');
    expect(pngSize(header)).toEqual({ width: 1080, height: 2160 });
    expect(pngSize(Buffer.from('error: closed'))).toBeNull();
  });
});

describe('text, keys and strokes as device shell commands', () => {
  it('writes spaces as %s and quotes each piece for the device shell', () => {
    expect(textCommands("it's a test; rm -rf /")).toEqual([`input text 'it'\\''s%sa%stest;%srm%s-rf%s/'`]);
  });

  it('keeps a typed "%s" literal by cutting between % and s, as the fake device decodes it', () => {
    const typed = textCommands('50% sure, %s stays').map((c) => decodeInputText(c.replace(/^input text '(.*)'$/, '$1')));
    expect(typed.join('')).toBe('50% sure, %s stays');
  });

  it('sends newline and tab as keys, and refuses what input text cannot type', () => {
    expect(textCommands('a\nb\tc')).toEqual([
      "input text 'a'",
      'input keyevent KEYCODE_ENTER',
      "input text 'b'",
      'input keyevent KEYCODE_TAB',
      "input text 'c'",
    ]);
    expect(textCommands('')).toEqual([]);
    expect(() => textCommands('café')).toThrow(/printable ASCII only; "é"/);
  });

  it('maps key names to Android keycodes and names the choices for an unknown one', () => {
    expect(keyCommand('Backspace')).toBe('input keyevent KEYCODE_DEL');
    expect(keyCommand('Escape')).toBe('input keyevent KEYCODE_ESCAPE');
    expect(keyCommand('ArrowLeft')).toBe('input keyevent KEYCODE_DPAD_LEFT');
    expect(() => keyCommand('F13')).toThrow(/no key called "F13"/);
  });

  it('quotes for the device shell so the value comes out whole', () => {
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('plays a tap as input tap, a long press as a swipe in place, a fling as a straight swipe, a drag with a rest as motion events', () => {
    const d = 2.625;
    expect(adbStrokeCommand(strokes(tap({ x: 100, y: 200 }))[0]!, d)).toBe('input tap 263 525');
    expect(adbStrokeCommand(strokes(longPress({ x: 100, y: 200 }))[0]!, d)).toBe('input swipe 263 525 263 525 800');
    expect(adbStrokeCommand(strokes(swipe({ x: 100, y: 600 }, { x: 100, y: 200 }))[0]!, d)).toMatch(/^input swipe 263 1575 263 525 26\d$/);
    const dragged = adbStrokeCommand(strokes(drag({ x: 100, y: 600 }, { x: 100, y: 300 }))[0]!, d);
    expect(dragged.startsWith('input motionevent DOWN 263 1575; ')).toBe(true);
    expect(dragged.endsWith('input motionevent UP 263 788')).toBe(true);
    expect(dragged.split(';').length).toBeLessThanOrEqual(14);
  });
});

describe('adb install, read', () => {
  it('finds Success, a Failure [CODE: why] (also where old adb exits 0), and adb refusing a file', () => {
    expect(installFailure('Performing Streamed Install\nSuccess\n')).toBeNull();
    // rom1v/sndcpy issue #248, verbatim
    expect(
      installFailure(
        'Waiting for device...\nPerforming Streamed Install\nadb: failed to install sndcpy.apk: Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n',
      ),
    ).toBe('INSTALL_FAILED_USER_RESTRICTED: Install canceled by user');
    // rom1v/sndcpy issue #241, the first line
    expect(installFailure('Performing Streamed Install\nadb: failed to stat sndcpy.apk: No such file or directory\n')).toBe(
      'failed to stat sndcpy.apk: No such file or directory',
    );
    // The package manager's own line without adb's prefix, as old adb printed it with exit 0 (the exit code per appium/appium-adb PR #300; the line composed)
    expect(installFailure('\tpkg: /data/local/tmp/app.apk\nFailure [INSTALL_FAILED_ALREADY_EXISTS]\n')).toBe('INSTALL_FAILED_ALREADY_EXISTS');
    expect(installFailure('')).toMatch(/neither Success nor a failure/);
  });
});

describe("pm grant / pm revoke's refusals", () => {
  it('reads the exception line in the recent form (exit 255) and the older one (exit 0), and nothing on success', () => {
    const recent = readFileSync(new URL('../doubles/android/fixtures/pm-grant-not-requested.txt', import.meta.url), 'utf8');
    expect(pmPermissionRefusal(recent, 255)).toEqual({
      kind: 'not-requested',
      said: 'java.lang.SecurityException: Package com.example.app has not requested permission android.permission.CAMERA',
    });
    expect(
      pmPermissionRefusal(
        'Operation not allowed: java.lang.SecurityException: Package io.appium.settings has not requested permission android.permission.CHANGE_CONFIGURATION\n',
        0,
      )?.kind,
    ).toBe('not-requested');
    expect(
      pmPermissionRefusal(
        "\nException occurred while executing 'grant':\njava.lang.IllegalArgumentException: Unknown permission: android.permission.POST_NOTIFICATIONS\n",
        255,
      )?.kind,
    ).toBe('unknown-permission');
    expect(
      pmPermissionRefusal("\nException occurred while executing 'revoke':\njava.lang.IllegalArgumentException: Unknown package: com.nope\n", 255)?.kind,
    ).toBe('unknown-package');
    expect(
      pmPermissionRefusal('java.lang.SecurityException: Permission android.permission.INTERNET requested by com.x is not a changeable permission type\n', 255)
        ?.kind,
    ).toBe('not-changeable');
    expect(pmPermissionRefusal('', 0)).toBeNull();
    // A failure pm does not explain is still a failure, with what it printed (or its exit code).
    expect(pmPermissionRefusal('', 1)).toEqual({ kind: 'other', said: 'exit code 1' });
    expect(pmPermissionRefusal('/system/bin/sh: pm: inaccessible or not found\n', 127)).toEqual({
      kind: 'other',
      said: '/system/bin/sh: pm: inaccessible or not found',
    });
  });

  it('skips a permission Android 14+ says the app does not request ("isn\'t requested by package"), and names the fix when the shell may not grant', async () => {
    // Recorded answers (test/fixtures/device-outputs): one per pm call, in order.
    const answers = (...files: [string, number][]) => {
      const queue = files.map(([f, code]) => ({ out: recorded(f).toString('utf8'), code }));
      // pm prints nothing when it grants.
      return { shellResult: async () => queue.shift() ?? { out: '', code: 0 } } as unknown as Adb;
    };
    // CAMERA refused with the Android 14+ wording: nothing applied, so the name is unsupported for this app, not a device failure.
    const camera = await setAndroidPermission(
      answers(['pm-grant.android14-permissionservice.isnt-requested.COMPOSED.txt', 255]),
      'emulator-5554',
      'com.example.app',
      {
        action: 'grant',
        permission: 'camera',
      },
    ).catch((e: unknown) => e);
    expect(camera).toMatchObject({ code: 'PERMISSION_UNSUPPORTED' });
    // Location: fine refused in the stderr form another project recorded, coarse granted: fine is skipped.
    const location = await setAndroidPermission(answers(['pm-grant.isnt-requested.stderr-as-published.txt', 1]), 'emulator-5554', 'com.example.app', {
      action: 'grant',
      permission: 'location',
    });
    expect(location).toMatchObject({ applied: ['android.permission.ACCESS_COARSE_LOCATION'], skipped: ['android.permission.ACCESS_FINE_LOCATION'] });
    const xiaomi = await setAndroidPermission(answers(['pm-grant.xiaomi-no-grant-runtime-permissions.gkd.txt', 255]), 'abc123', 'com.example.app', {
      action: 'grant',
      permission: 'camera',
    }).catch((e: unknown) => e);
    expect(xiaomi).toMatchObject({
      code: 'DEVICE_FAILED',
      hint: expect.stringMatching(/USB debugging \(Security settings\)/),
      details: { cause: 'SHELL_MAY_NOT_GRANT' },
    });
  });

  it('maps the shared names to Android permissions, and says which names Android has', () => {
    expect(androidPermissions('location', 'grant')).toEqual(['android.permission.ACCESS_FINE_LOCATION', 'android.permission.ACCESS_COARSE_LOCATION']);
    expect(androidPermissions('location-always', 'grant')).toContain('android.permission.ACCESS_BACKGROUND_LOCATION');
    expect(androidPermissions('location-always', 'revoke')).toEqual(['android.permission.ACCESS_BACKGROUND_LOCATION']);
    expect(androidPermissions('all', 'grant')).toHaveLength(new Set(androidPermissions('all', 'grant')).size);
    expect(supportedOn('android')).not.toContain('reminders');
    expect(supportedOn('ios')).not.toContain('camera');
    expect(supportedOn('ios')).not.toContain('notifications');
    expect(supportedOn('web')).toEqual(['location', 'camera', 'microphone', 'notifications', 'all']);
  });
});
