// `xcrun simctl`, one method per subcommand the backend uses, each with its own deadline. simctl's
// failures arrive as "An error was encountered processing the command (domain=…, code=…):" plus a
// line or two; the ones that mean "already in the state you asked for" are not failures here, and
// the rest become DeviceErrors that say what to do.
import { DeviceError } from '../backend.js';
import { parseDeviceList, type SimDevice } from './devices-list.js';
import { parseOpenStep, type PlistValue } from './plist.js';
import { run, ToolFailure, type RunResult } from './run.js';

export const XCODE_HINT =
  'install Xcode, open it once so it finishes installing its components, and check `xcode-select -p` points at it (or give the ios backend the path of xcrun)';
const HUNG_HINT = 'the simulator may be hung: `xcrun simctl shutdown <udid>` and let the worker boot it again';

const SECOND = 1000;
const udidIn = (args: string[]): string | undefined => args.find((a) => /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i.test(a));

export type AppInfo = Record<string, PlistValue>;

/** The pid `simctl launch` prints after the bundle id ("com.example.app: 4321"), or null. */
export function launchedPid(stdout: string): number | null {
  const pid = /:\s*(\d+)\s*$/.exec(stdout.trim());
  return pid ? Number(pid[1]) : null;
}

export class Simctl {
  constructor(readonly xcrun: string) {}

  /** Where simctl is, which proves Xcode (or its command line tools) is installed and selected. */
  async locate(): Promise<string> {
    try {
      const { stdout } = await run(this.xcrun, ['--find', 'simctl'], { timeoutMs: 20 * SECOND });
      return stdout.toString('utf8').trim();
    } catch (err) {
      throw this.fail('find simctl', err);
    }
  }

  async listDevices(): Promise<SimDevice[]> {
    const { stdout } = await this.call('list the simulators', ['list', 'devices', '-j'], { timeoutMs: 30 * SECOND, maxBytes: 16 * 1024 * 1024 });
    return parseDeviceList(stdout.toString('utf8'));
  }

  /**
   * Boots and waits until the device has finished booting: `list devices` says Booted at the start
   * of a boot, long before installd and FrontBoard answer, so `bootstatus` is what is waited on.
   */
  async boot(udid: string, signal?: AbortSignal): Promise<void> {
    await this.tolerate('boot the simulator', ['boot', udid], /current state: Booted/, 60 * SECOND, signal);
    await this.call('wait for the simulator to boot', ['bootstatus', udid], { timeoutMs: 600 * SECOND, signal });
  }

  async shutdown(udid: string, signal?: AbortSignal): Promise<void> {
    await this.tolerate('shut the simulator down', ['shutdown', udid], /current state: Shutdown/, 60 * SECOND, signal);
  }

  async erase(udid: string, signal?: AbortSignal): Promise<void> {
    await this.call('erase the simulator', ['erase', udid], { timeoutMs: 120 * SECOND, signal });
  }

  async install(udid: string, appPath: string, signal?: AbortSignal): Promise<void> {
    await this.call('install the app', ['install', udid, appPath], { timeoutMs: 300 * SECOND, signal });
  }

  async uninstall(udid: string, bundleId: string, signal?: AbortSignal): Promise<void> {
    await this.call('uninstall the app', ['uninstall', udid, bundleId], { timeoutMs: 120 * SECOND, signal });
  }

  /** Launches and returns the pid simctl prints ("com.example.app: 4321"). */
  async launch(udid: string, bundleId: string, signal?: AbortSignal): Promise<number | null> {
    try {
      const { stdout } = await run(this.xcrun, ['simctl', 'launch', udid, bundleId], { timeoutMs: 60 * SECOND, signal });
      return launchedPid(stdout.toString('utf8'));
    } catch (err) {
      // simctl never says "not installed": it says FBSOpenApplicationServiceErrorDomain code 4 for
      // that and for other refusals alike, so whether the app is there is asked separately.
      if (err instanceof ToolFailure && err.kind === 'exit') {
        const info = await this.appInfo(udid, bundleId).catch(() => undefined);
        if (info === null) {
          throw new DeviceError(
            'APP_UNREACHABLE',
            `${bundleId} is not installed on simulator ${udid}`,
            `install a simulator build of it first: \`xcrun simctl install ${udid} path/to/App.app\``,
          );
        }
        throw new DeviceError(
          'APP_UNREACHABLE',
          `${bundleId} would not launch: ${err.said}`,
          'check that it is a simulator build for this runtime; the device log (`xcrun simctl spawn <udid> log show --last 5m`) says why it exited',
        );
      }
      throw this.fail(`launch ${bundleId}`, err);
    }
  }

  async terminate(udid: string, bundleId: string): Promise<void> {
    await this.tolerate(`terminate ${bundleId}`, ['terminate', udid, bundleId], /found nothing to terminate/, 30 * SECOND);
  }

  async openUrl(udid: string, url: string): Promise<void> {
    try {
      await run(this.xcrun, ['simctl', 'openurl', udid, url], { timeoutMs: 30 * SECOND });
    } catch (err) {
      if (err instanceof ToolFailure && /LSApplicationWorkspaceErrorDomain, code=115/.test(err.stderr)) {
        throw new DeviceError(
          'APP_UNREACHABLE',
          `nothing installed on the simulator opens ${url}`,
          'install the app that handles this scheme, or open an https URL (Safari handles those)',
        );
      }
      throw this.fail(`open ${url}`, err);
    }
  }

  /** `simctl privacy <udid> grant|revoke|reset <service> [bundle]`: TCC permissions (camera, photos, …). */
  async privacy(udid: string, action: 'grant' | 'revoke' | 'reset', service: string, bundleId?: string): Promise<void> {
    await this.call(`${action} the ${service} permission`, ['privacy', udid, action, service, ...(bundleId ? [bundleId] : [])], { timeoutMs: 30 * SECOND });
  }

  /** The screen as PNG at full resolution, written by simctl to stdout ("-"). */
  async screenshot(udid: string): Promise<Buffer> {
    const { stdout } = await this.call('take a screenshot', ['io', udid, 'screenshot', '--type=png', '-'], {
      timeoutMs: 20 * SECOND,
      maxBytes: 64 * 1024 * 1024,
    });
    if (stdout.subarray(1, 4).toString('latin1') !== 'PNG')
      throw new DeviceError('DEVICE_FAILED', '`simctl io screenshot` did not print a PNG', 'update Xcode: writing to "-" (stdout) needs Xcode 9 or later');
    return stdout;
  }

  /** What simctl knows of an installed app (an OpenStep plist), or null when it is not installed. */
  async appInfo(udid: string, bundleId: string): Promise<AppInfo | null> {
    const { stdout } = await this.call(`read ${bundleId}'s app info`, ['appinfo', udid, bundleId], { timeoutMs: 15 * SECOND });
    const text = stdout.toString('utf8').trim();
    if (!text) return null;
    const doc = parseOpenStep(text);
    if (typeof doc !== 'object' || Array.isArray(doc)) return null;
    // For an app that is not there, simctl prints a dictionary with the bundle id and nothing else.
    return 'Path' in doc || 'Bundle' in doc || 'ApplicationType' in doc ? doc : null;
  }

  /** One variable of the simulator's launch environment (SIMULATOR_MAINSCREEN_SCALE, …). */
  async getenv(udid: string, name: string): Promise<string> {
    const { stdout } = await this.call(`read ${name}`, ['getenv', udid, name], { timeoutMs: 10 * SECOND });
    return stdout.toString('utf8').trim();
  }

  private async call(verb: string, args: string[], opts: { timeoutMs: number; maxBytes?: number; signal?: AbortSignal }): Promise<RunResult> {
    try {
      return await run(this.xcrun, ['simctl', ...args], opts);
    } catch (err) {
      throw this.fail(verb, err, udidIn(args));
    }
  }

  /** A command whose failure `ok` describes is already where it was asked to go. */
  private async tolerate(verb: string, args: string[], ok: RegExp, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    try {
      await run(this.xcrun, ['simctl', ...args], { timeoutMs, signal });
    } catch (err) {
      if (err instanceof ToolFailure && err.kind === 'exit' && ok.test(err.stderr)) return;
      throw this.fail(verb, err, udidIn(args));
    }
  }

  fail(verb: string, err: unknown, udid = '<udid>'): DeviceError {
    if (err instanceof DeviceError) return err;
    if (!(err instanceof ToolFailure)) return new DeviceError('DEVICE_FAILED', `could not ${verb}: ${(err as Error).message}`);
    switch (err.kind) {
      case 'missing':
        return new DeviceError('DEVICE_FAILED', `could not ${verb}: xcrun was not found at ${this.xcrun}`, XCODE_HINT);
      case 'timeout':
        return new DeviceError('DEVICE_FAILED', `could not ${verb}: ${err.message}`, HUNG_HINT.replace('<udid>', udid));
      case 'aborted':
        return new DeviceError('DEVICE_FAILED', `stopped before it could ${verb}: the operation was cancelled`);
      case 'overflow':
        return new DeviceError('DEVICE_FAILED', `could not ${verb}: ${err.message}`);
    }
    const said = err.said;
    if (/^xcrun: error/m.test(err.stderr)) return new DeviceError('DEVICE_FAILED', `could not ${verb}: ${said}`, XCODE_HINT);
    if (/Invalid device/.test(err.stderr))
      return new DeviceError(
        'DEVICE_FAILED',
        `simulator ${udid} no longer exists (${said})`,
        'it was deleted; the worker drops it at its next look at `simctl list devices`',
      );
    if (/current state: Shutdown/.test(err.stderr))
      return new DeviceError('DEVICE_FAILED', `could not ${verb}: simulator ${udid} is not booted`, 'prepare the device again (it boots the simulator)');
    return new DeviceError(
      'DEVICE_FAILED',
      `could not ${verb}: ${said || err.message}`,
      "the message is simctl's own; if it repeats, erase the simulator or check Xcode in the worker log",
    );
  }
}
