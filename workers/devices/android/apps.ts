// Apps on an emulator: a clean state, a launch, a link opened. The reset policy says what "clean"
// means: 'clear' stops the session's app and wipes its data (`am force-stop`, `pm clear`), which
// is quick but leaves the rest of the device as the session left it (other apps, settings, files
// on shared storage); 'snapshot:<name>' loads a saved emulator snapshot through the console, which
// puts back the whole device as it was saved and takes a few seconds.
// Launching uses monkey rather than `am start`: monkey finds the app's launcher activity itself, so
// a session names only its package. `--pct-syskeys 0` because monkey refuses to start on a device
// without physical system keys otherwise ("SYS_KEYS has no physical keys but with factor 2.0%"),
// which is how emulators without a hardware-key skin are built.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DeviceError } from '../backend.js';
import { type Adb, firstLine, shellQuote } from './adb.js';
import type { EmulatorConsole } from './console.js';
import { amStartFailure, installFailure, monkeyFailure } from './shell-output.js';

/** An Android package name (also what keeps a session's package from naming a path). */
const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

export type ResetPolicy = 'clear' | `snapshot:${string}`;

/** The console when it can be used, or why not. */
export type ConsoleAccess = { console: EmulatorConsole } | { console: null; why: string };

export class AppControl {
  constructor(
    private readonly adb: Adb,
    private readonly serial: string,
    private readonly policy: ResetPolicy,
    private readonly consoleAccess: () => ConsoleAccess,
    /** After a snapshot load the device may have another screen size; it is read again. */
    private readonly afterSnapshot: () => Promise<void>,
    /** The host's APK folder: a session's app missing from the device is installed from `<package>.apk` there. */
    private readonly apkDir: string | null = null,
  ) {}

  /**
   * A clean start for a session of `pkg` (checked to be installed), ready for launch(); with no
   * app, the home screen. One shell round trip under the 'clear' policy: each costs an adb call.
   */
  async forSession(pkg: string | null, signal: AbortSignal): Promise<void> {
    if (pkg && !PACKAGE.test(pkg))
      throw new DeviceError('APP_UNREACHABLE', `${JSON.stringify(pkg)} is not an Android package name`, 'name the app by its package, as in com.example.app');
    if (this.snapshot) {
      await this.loadSnapshot(signal);
      if (!pkg) return this.home();
      const path = `pm path ${shellQuote(pkg)}`;
      let { out } = await this.adb.shellResult(this.serial, path, { signal });
      if (!installedIn(out) && (await this.install(pkg, signal))) ({ out } = await this.adb.shellResult(this.serial, path, { signal }));
      return this.checkInstalled(pkg, out);
    }
    if (!pkg) return this.home();
    const q = shellQuote(pkg);
    const script = `pm path ${q} && am force-stop ${q} && pm clear ${q}`;
    let { out } = await this.adb.shellResult(this.serial, script, { signal, timeoutMs: 30_000 });
    if (!installedIn(out) && (await this.install(pkg, signal))) ({ out } = await this.adb.shellResult(this.serial, script, { signal, timeoutMs: 30_000 }));
    this.checkInstalled(pkg, out);
    this.checkCleared([pkg], out);
  }

  /**
   * `adb install -r` of `<apkDir>/<pkg>.apk`, when the host keeps one; false when it does not. A
   * refusal is an error naming adb's reason (INSTALL_FAILED_…), never a session on a device
   * without its app.
   */
  private async install(pkg: string, signal: AbortSignal): Promise<boolean> {
    if (!this.apkDir) return false;
    const apk = join(this.apkDir, `${pkg}.apk`);
    if (!existsSync(apk)) return false;
    const r = await this.adb.run(['install', '-r', apk], { serial: this.serial, signal, timeoutMs: 180_000, allowExit: true });
    const failure = installFailure(`${r.stdout.toString('utf8')}\n${r.stderr}`);
    if (failure)
      throw new DeviceError(
        'APP_UNREACHABLE',
        `could not install ${pkg} on ${this.serial} from ${apk}: ${failure}`,
        `try it by hand: adb -s ${this.serial} install -r ${apk}`,
        { apk, reason: failure },
      );
    return true;
  }

  /** Nothing left of the given apps' sessions, the home screen showing; by snapshot, the whole device as saved. */
  async clean(packages: string[], signal: AbortSignal): Promise<void> {
    if (this.snapshot) return this.loadSnapshot(signal);
    const unique = [...new Set(packages)];
    const script = [...unique.map((p) => `am force-stop ${shellQuote(p)} && pm clear ${shellQuote(p)}`), 'input keyevent KEYCODE_HOME'].join('; ');
    const { out } = await this.adb.shellResult(this.serial, script, { signal, timeoutMs: 30_000 });
    this.checkCleared(unique, out);
  }

  /** The app opened afresh from its launcher activity (or the home screen when there is none). */
  async launch(pkg: string | null): Promise<void> {
    if (!pkg) return this.home();
    const { out } = await this.adb.shellResult(this.serial, `monkey -p ${shellQuote(pkg)} -c android.intent.category.LAUNCHER --pct-syskeys 0 1`, {
      timeoutMs: 30_000,
    });
    const failure = monkeyFailure(out);
    if (failure)
      throw new DeviceError(
        'APP_UNREACHABLE',
        `could not launch ${pkg} on ${this.serial}: ${failure}`,
        `is ${pkg} installed with a launcher activity? adb -s ${this.serial} shell pm path ${pkg}`,
      );
  }

  /** A link handed to whatever handles it on the device (a browser for web pages, an app for its deep links). */
  async open(url: string): Promise<void> {
    const { out } = await this.adb.shellResult(this.serial, `am start -a android.intent.action.VIEW -d ${shellQuote(url)}`, { timeoutMs: 30_000 });
    const failure = amStartFailure(out);
    if (failure)
      throw new DeviceError(
        'APP_UNREACHABLE',
        `nothing on ${this.serial} opened ${url}: ${failure}`,
        'install an app that handles the link (a browser for web pages, the app for its own scheme)',
      );
  }

  async home(): Promise<void> {
    await this.adb.shell(this.serial, 'input keyevent KEYCODE_HOME');
  }

  private get snapshot(): string | null {
    return this.policy.startsWith('snapshot:') ? this.policy.slice('snapshot:'.length) : null;
  }

  private async loadSnapshot(signal: AbortSignal): Promise<void> {
    const name = this.snapshot!;
    const access = this.consoleAccess();
    if (!access.console) {
      throw new DeviceError(
        'DEVICE_FAILED',
        `the reset policy loads snapshot "${name}" through the emulator console, which is not available: ${access.why}`,
        'make the console reachable (consoleTokenFile), or use the reset policy "clear"',
      );
    }
    await access.console.snapshotLoad(name);
    // The guest's adb daemon restarts with the snapshot; wait until it answers again.
    await this.adb.run(['wait-for-device'], { serial: this.serial, timeoutMs: 60_000, signal });
    await this.afterSnapshot();
  }

  private checkInstalled(pkg: string, out: string): void {
    if (!installedIn(out)) {
      const where = this.apkDir
        ? `put ${pkg}.apk in this host's APK folder (${this.apkDir})`
        : 'give the worker an APK folder holding it (SIMFLEET_ANDROID_APK_DIR)';
      throw new DeviceError(
        'APP_UNREACHABLE',
        `${pkg} is not installed on ${this.serial}`,
        `${where}, install it by hand (adb -s ${this.serial} install app.apk), or bake it into the emulator image or snapshot`,
      );
    }
  }

  /** pm clear says "Success" once per package it cleared. */
  private checkCleared(packages: string[], out: string): void {
    const cleared = out.match(/^Success/gm)?.length ?? 0;
    if (cleared < packages.length) {
      const said = firstLine(out.replace(/^(package:.*|Success)$/gm, ''));
      throw new DeviceError(
        'DEVICE_FAILED',
        `could not clear the data of ${packages.join(', ')} on ${this.serial}: ${said || '(no answer)'}`,
        `check by hand: adb -s ${this.serial} shell pm clear ${packages[0]}`,
      );
    }
  }
}

/** `pm path` printed the package's APK: it is installed. */
const installedIn = (out: string) => /^package:/m.test(out);
