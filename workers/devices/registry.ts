// The one module that knows which backends exist. Adding a platform means adding it here.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Logger } from 'pino';
import { AndroidProvider } from './android/provider.js';
import type { BackendProvider } from './backend.js';
import { FakeProvider } from './fake/provider.js';
import { IosProvider } from './ios/provider.js';
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
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
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
