// The one module that knows which backends exist. Adding a platform means adding it here.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Logger } from 'pino';
import type { HostBackendPlan, HostCheck, ProbeHost } from '../host/probe.js';
import { androidChecks } from './android/checks.js';
import { AndroidProvider } from './android/provider.js';
import type { BackendProvider } from './backend.js';
import { FakeProvider } from './fake/provider.js';
import { iosChecks } from './ios/checks.js';
import { IosProvider } from './ios/provider.js';
import { chromiumCheck, sandboxCheck } from './web/checks.js';
import { parseWebDevices } from './web/profiles.js';
import { WebProvider } from './web/provider.js';

export interface BackendSettings {
  fakeDevices: number;
  fakeOperationMs: number;
  webDevices: string;
  chromium: string | undefined;
  /** adb for Android emulators: "auto" (adb on PATH, if any), "none", or a path. */
  adb: string;
  /** The emulator console's auth token file (default ~/.emulator_console_auth_token). */
  emulatorTokenFile: string | undefined;
  /** Between sessions: "clear" (the app's data) or "snapshot:NAME" (the emulator restores a snapshot). */
  androidReset: 'clear' | `snapshot:${string}`;
  /** A folder of APKs named `<package>.apk`: a session's app missing from an emulator is installed from it. */
  androidApkDir: string | undefined;
  /** xcrun for iOS simulators: "auto" (on macOS), "none", or a path. */
  xcrun: string;
  iosUiTool: 'auto' | 'axe' | 'idb';
  iosUiToolPath: string | undefined;
  /** The native frame helper (native/ios-frames); without it, screenshots are polled. */
  iosFrameHelper: string | undefined;
  iosReset: 'erase' | 'reinstall';
}

/** Throws with a message naming what is wrong in the backend settings (called when config loads). */
export function checkBackendSettings(settings: Pick<BackendSettings, 'webDevices'>): void {
  parseWebDevices(settings.webDevices);
}

/** An executable of this name on PATH, or undefined. */
function onPath(name: string, pathVar = process.env.PATH): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this one
    }
  }
  return undefined;
}

/**
 * Which tool a platform setting names: "none" turns the backend off; "auto" turns it on where the
 * host plainly has the platform (adb on PATH; macOS for simulators) and leaves it out elsewhere, so
 * a Linux web host does not report an iOS backend it could never have; a path turns it on, and a
 * wrong one shows as an unavailable backend with a hint rather than silence.
 */
function toolFor(setting: string, auto: () => string | undefined): string | undefined {
  if (setting === 'none') return undefined;
  return setting === 'auto' ? auto() : setting;
}

export function createProviders(settings: BackendSettings, logger: Logger): BackendProvider[] {
  const providers: BackendProvider[] = [];
  const web = parseWebDevices(settings.webDevices);
  if (web.length > 0) providers.push(new WebProvider({ profiles: web, chromium: settings.chromium, logger: logger.child({ backend: 'web' }) }));
  const adb = toolFor(settings.adb, () => onPath('adb'));
  if (adb) {
    providers.push(
      new AndroidProvider({
        adb,
        ...(settings.emulatorTokenFile ? { consoleTokenFile: settings.emulatorTokenFile } : {}),
        reset: settings.androidReset,
        ...(settings.androidApkDir ? { apkDir: settings.androidApkDir } : {}),
        logger: logger.child({ backend: 'android' }),
      }),
    );
  }
  const xcrun = toolFor(settings.xcrun, () => (process.platform === 'darwin' ? 'xcrun' : undefined));
  if (xcrun) {
    providers.push(
      new IosProvider({
        xcrun,
        uiTool: settings.iosUiTool,
        ...(settings.iosUiToolPath ? { uiToolPath: settings.iosUiToolPath } : {}),
        ...(settings.iosFrameHelper ? { frameHelper: settings.iosFrameHelper } : {}),
        reset: settings.iosReset,
        logger: logger.child({ backend: 'ios' }),
      }),
    );
  }
  if (settings.fakeDevices > 0) providers.push(new FakeProvider(settings.fakeDevices, { operationMs: settings.fakeOperationMs }));
  return providers;
}

/** Which backends these settings turn on for this host, and the setting that decides each, as createProviders decides. */
export function planBackends(settings: BackendSettings, host: ProbeHost): { plans: HostBackendPlan[]; adb: string | undefined; xcrun: string | undefined } {
  const web = parseWebDevices(settings.webDevices);
  const adb = toolFor(settings.adb, () => onPath('adb', host.env.PATH));
  const xcrun = toolFor(settings.xcrun, () => (host.platform === 'darwin' ? 'xcrun' : undefined));
  const auto = (setting: string, on: string | undefined, off: string) =>
    setting === 'none' ? 'turned off (none)' : setting === 'auto' ? (on ? `auto: ${on}` : `auto: ${off}`) : `set to ${setting}`;
  const plans: HostBackendPlan[] = [
    { backend: 'web', configured: web.length > 0, why: `SIMFLEET_WEB_DEVICES=${settings.webDevices || 'none'}` },
    { backend: 'android', configured: adb !== undefined, why: `SIMFLEET_ADB ${auto(settings.adb, adb && `adb at ${adb}`, 'no adb on the PATH')}` },
    {
      backend: 'ios',
      configured: xcrun !== undefined,
      why: `SIMFLEET_XCRUN ${auto(settings.xcrun, xcrun && 'this host is a Mac', `this host runs ${host.platform}, not macOS`)}`,
    },
  ];
  if (settings.fakeDevices > 0) plans.push({ backend: 'fake', configured: true, why: `SIMFLEET_FAKE_DEVICES=${settings.fakeDevices}` });
  return { plans, adb, xcrun };
}

/** What each backend needs of this host, found or not: every backend's checks, whether configured or not. */
export async function backendChecks(settings: BackendSettings, host: ProbeHost): Promise<{ plans: HostBackendPlan[]; checks: HostCheck[] }> {
  const { plans, adb, xcrun } = planBackends(settings, host);
  const web = plans[0]!.configured;
  const [chromium, sandbox, android, ios] = await Promise.all([
    chromiumCheck(settings.chromium, web, host),
    sandboxCheck(web, host),
    androidChecks({ adb, adbSetting: settings.adb, emulatorTokenFile: settings.emulatorTokenFile }, host),
    iosChecks(
      { xcrun, xcrunSetting: settings.xcrun, uiTool: settings.iosUiTool, uiToolPath: settings.iosUiToolPath, frameHelper: settings.iosFrameHelper },
      host,
    ),
  ]);
  return { plans, checks: [chromium, sandbox, ...android, ...ios] };
}
