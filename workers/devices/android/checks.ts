// What the Android backend needs of its host: adb, and for the emulators it drives their console's
// auth token; the emulator binary itself is the operator's (the worker drives emulators that are
// running, it does not start them), so it is reported but never needed.
//
// Tested on Linux without an emulator: adb and the emulator are absent here, so the checks are run
// against that absence, against the adb double (test/doubles/android/adb.mjs, which prints a
// recorded `adb version`), and `parseAdbVersion` against that recorded output. An `emulator -version`
// has never run here and no recorded output of it is kept: its first line is shown as printed.
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findExecutable, type HostCheck, installCommand, probe, type ProbeHost, said } from '../../host/probe.js';

/** "Android Debug Bridge version 1.0.41\nVersion 36.0.0-13206524\n…" → "36.0.0-13206524 (adb 1.0.41)". */
export function parseAdbVersion(text: string): string | undefined {
  const protocol = /Android Debug Bridge version (\S+)/.exec(text)?.[1];
  const tools = /^Version (\S+)/m.exec(text)?.[1];
  if (tools) return protocol ? `${tools} (adb ${protocol})` : tools;
  return protocol;
}

export interface AndroidCheckSettings {
  /** adb as the worker would run it (resolved from "auto" or a path), or undefined when it would not. */
  adb: string | undefined;
  /** The SIMFLEET_ADB setting as given: "auto", "none" or a path. */
  adbSetting: string;
  emulatorTokenFile: string | undefined;
}

export async function androidChecks(s: AndroidCheckSettings, host: ProbeHost): Promise<HostCheck[]> {
  const configured = s.adb !== undefined;
  return Promise.all([adbCheck(s, host), emulatorCheck(host), tokenCheck(s.emulatorTokenFile, configured, host)]);
}

async function adbCheck(s: AndroidCheckSettings, host: ProbeHost): Promise<HostCheck> {
  const base = { id: 'adb', title: 'adb (Android platform-tools)', area: 'android' } as const;
  const fix = installCommand(host.platform, 'sudo apt-get install -y adb', 'brew install --cask android-platform-tools');
  if (s.adbSetting === 'none') return { ...base, needed: false, status: 'skipped', detail: 'turned off (SIMFLEET_ADB=none)' };
  if (!s.adb)
    return { ...base, needed: false, status: 'missing', detail: 'no adb on the PATH (SIMFLEET_ADB=auto: the android backend is off until there is one)', fix };
  const asked = await probe(s.adb, ['version'], { timeoutMs: 5000, env: host.env });
  if (!asked.ok) {
    return {
      ...base,
      needed: true,
      status: asked.kind === 'missing' ? 'missing' : 'broken',
      detail: asked.message,
      fix: `${fix}, or point SIMFLEET_ADB at adb`,
    };
  }
  const version = parseAdbVersion(asked.out);
  if (!version) return { ...base, needed: true, status: 'broken', detail: `\`${s.adb} version\` printed no version: ${said(asked.out)}`, fix };
  return { ...base, needed: true, status: 'ok', detail: `adb ${version} at ${s.adb}`, version };
}

/** Where the Android SDK keeps the emulator, after the PATH. */
function sdkDirs(host: ProbeHost): string[] {
  const home = host.env.HOME ?? homedir();
  const roots = [host.env.ANDROID_HOME, host.env.ANDROID_SDK_ROOT, join(home, host.platform === 'darwin' ? 'Library/Android/sdk' : 'Android/Sdk')];
  return roots.filter((r): r is string => Boolean(r)).map((r) => join(r, 'emulator'));
}

async function emulatorCheck(host: ProbeHost): Promise<HostCheck> {
  const base = { id: 'emulator', title: 'the Android emulator', area: 'android', needed: false } as const;
  const noKvmHere =
    host.platform === 'linux' &&
    !(await stat('/dev/kvm').then(
      () => true,
      () => false,
    ));
  const noKvm = noKvmHere ? '; /dev/kvm is absent, so an emulator here would run without acceleration (too slow to use)' : '';
  const path = await findExecutable('emulator', host.env, sdkDirs(host));
  const fix = 'sdkmanager --install emulator (Android SDK command-line tools), then create an AVD and start it';
  if (!path) return { ...base, status: 'missing', detail: `no emulator on the PATH or in the Android SDK (ANDROID_HOME)${noKvm}`, fix };
  const asked = await probe(path, ['-version'], { timeoutMs: 10_000, env: host.env });
  if (!asked.ok) return { ...base, status: 'broken', detail: `${asked.message}${noKvm}`, fix };
  const first = asked.out.trim().split('\n')[0] ?? '';
  return { ...base, status: 'ok', detail: `${first.slice(0, 200)} at ${path}${noKvm}` };
}

async function tokenCheck(configuredFile: string | undefined, needed: boolean, host: ProbeHost): Promise<HostCheck> {
  const base = { id: 'emulator-console-token', title: "the emulator console's auth token", area: 'android', needed } as const;
  const file = configuredFile ?? join(host.env.HOME ?? homedir(), '.emulator_console_auth_token');
  const fix = configuredFile
    ? `point SIMFLEET_EMULATOR_TOKEN_FILE at the ~/.emulator_console_auth_token of the user running the emulators`
    : 'start an emulator once as this user (it writes the file), or set SIMFLEET_EMULATOR_TOKEN_FILE to the emulator user’s token file';
  // The token is a secret: its length is all that is said of it.
  const read = await readFile(file, 'utf8').then(
    (t) => ({ ok: true as const, length: t.trim().length }),
    (e: NodeJS.ErrnoException) => ({ ok: false as const, code: e.code, message: e.message }),
  );
  if (read.ok) return { ...base, status: 'ok', detail: read.length ? `${file} holds a token` : `${file} is empty: the console asks for no token` };
  if (read.code === 'ENOENT') return { ...base, status: 'missing', detail: `${file} does not exist (the emulator writes it on its first start)`, fix };
  return { ...base, status: 'broken', detail: `${file} cannot be read: ${read.message}`, fix };
}
