// The Android backend on this host: the emulators adb lists, read every few seconds. Only emulators
// are offered. A physical phone has no emulator console (no snapshot reset, no multi-finger input,
// no host-side screenshots), a `pm clear` reset leaves the rest of a personal device as the session
// left it, and a farm of phones needs care this backend does not take (unlock, prompts, USB power);
// they are counted in the status and left alone. Without adb the worker still starts and the
// status says how to get it.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { BackendProvider, BackendStatus, DeviceReport } from '../backend.js';
import { Adb, ADB_INSTALL_HINT, firstLine } from './adb.js';
import type { ResetPolicy } from './apps.js';
import { EmulatorConsole } from './console.js';
import { AndroidDevice } from './device.js';
import { type ListedDevice, parseDevicesList, stateHealth } from './devices-list.js';

export interface AndroidOptions {
  /** The adb executable (a path, or a name looked up on PATH). */
  adb: string;
  /** The emulator console's auth token file; default ~/.emulator_console_auth_token. */
  consoleTokenFile?: string;
  /** What a reset does: wipe the session app's data, or load a named emulator snapshot. */
  reset: ResetPolicy;
  /** The host's APK folder: a session's app missing from a device is installed from `<package>.apk` there. */
  apkDir?: string;
  /** Time between screen captures while the screen moves (default 250 ms). */
  pollMs?: number;
  /** How often `adb devices -l` is read (default 5000 ms). */
  discoverMs?: number;
  logger: Logger;
}

/** How long closing waits for adb calls still running (a screencap, a dump) before it kills them. */
const ADB_DRAIN_MS = 3000;

export class AndroidProvider implements BackendProvider {
  readonly backend = 'android' as const;
  private readonly adb: Adb;
  private readonly events = new EventEmitter();
  private readonly devices = new Map<string, AndroidDevice>();
  private readonly listed = new Map<string, ListedDevice>();
  private started = false;
  private version: string | undefined;
  private missing: string | undefined;
  private listError: string | undefined;
  private others = 0;
  private reports: DeviceReport[] = [];
  private ticking: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: AndroidOptions) {
    this.adb = new Adb(opts.adb);
  }

  async start(): Promise<void> {
    try {
      this.version = await this.adb.version();
    } catch (err) {
      this.missing = (err as Error).message;
      this.opts.logger.warn({ reason: this.missing }, 'the android backend is unavailable');
      return;
    } finally {
      this.started = true;
    }
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.opts.discoverMs ?? 5000);
    this.timer.unref();
  }

  async status(): Promise<BackendStatus> {
    const base = { backend: 'android' as const, platform: 'android' as const };
    if (!this.started) return { ...base, available: false, detail: 'not started', hint: ADB_INSTALL_HINT };
    if (this.missing || !this.version) return { ...base, available: false, detail: this.missing ?? 'adb did not say its version', hint: ADB_INSTALL_HINT };
    const version = this.version.split(/\r?\n/).slice(0, 2).join(', ');
    const parts = [`${version} (${this.opts.adb})`];
    if (this.listError) parts.push(`\`adb devices -l\` failed: ${this.listError}`);
    else parts.push(`${this.devices.size} emulator(s)${this.others ? `; ${this.others} other device(s) ignored (only emulators are offered)` : ''}`);
    for (const d of this.devices.values()) {
      const c = d.costs();
      const capture = c.captureMedianMs === null ? 'capture not measured yet' : `capture median ${c.captureMedianMs} ms`;
      const dump = c.dumpMedianMs === null ? 'uiautomator dump not measured yet' : `uiautomator dump median ${c.dumpMedianMs} ms`;
      parts.push(`${d.localId}: ${c.frameSource}, ${capture}, ${dump}`);
    }
    return { ...base, available: true, detail: parts.join('; '), ...(this.listError ? { hint: 'the adb server may have stopped: `adb start-server`' } : {}) };
  }

  async discover(): Promise<DeviceReport[]> {
    return this.reports;
  }

  device(localId: string): AndroidDevice | undefined {
    return this.devices.get(localId);
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.devices.values()].map((d) => d.close()));
    this.devices.clear();
    await this.adb.drain(ADB_DRAIN_MS);
    this.events.removeAllListeners();
  }

  /** One reading of `adb devices -l` (never two at once). */
  tick(): Promise<void> {
    this.ticking ??= this.discoverOnce().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async discoverOnce(): Promise<void> {
    if (this.closed) return;
    let listed: ListedDevice[];
    try {
      listed = parseDevicesList(await this.adb.text(['devices', '-l'], { timeoutMs: 10_000 }));
      this.listError = undefined;
    } catch (err) {
      this.listError = firstLine((err as Error).message);
      for (const d of this.devices.values()) d.health = { state: 'broken', reason: `adb could not list devices: ${this.listError}` };
      return this.publish();
    }
    const emulators = listed.filter((d) => d.emulatorPort !== null);
    this.others = listed.length - emulators.length;
    for (const [serial, device] of this.devices) {
      if (emulators.some((e) => e.serial === serial)) continue;
      this.opts.logger.info({ serial }, 'emulator no longer listed by adb');
      this.devices.delete(serial);
      this.listed.delete(serial);
      await device.close();
    }
    await Promise.all(emulators.map((entry) => this.follow(entry)));
    this.publish();
  }

  private async follow(entry: ListedDevice): Promise<void> {
    this.listed.set(entry.serial, entry);
    let device = this.devices.get(entry.serial);
    if (!device) {
      const console = new EmulatorConsole({ port: entry.emulatorPort!, ...(this.opts.consoleTokenFile ? { tokenFile: this.opts.consoleTokenFile } : {}) });
      device = new AndroidDevice({
        serial: entry.serial,
        adb: this.adb,
        console,
        reset: this.opts.reset,
        ...(this.opts.apkDir ? { apkDir: this.opts.apkDir } : {}),
        pollMs: this.opts.pollMs ?? 250,
        logger: this.opts.logger.child({ localId: entry.serial }),
      });
      this.devices.set(entry.serial, device);
    }
    const state = stateHealth(entry);
    if (!state.ready) {
      device.health = { state: 'broken', reason: state.reason };
      return;
    }
    try {
      if (device.health.state !== 'ready') await device.init();
      else if (device.consoleDown) await device.checkConsole();
    } catch (err) {
      device.health = { state: 'broken', reason: `could not read ${entry.serial}: ${firstLine((err as Error).message)}` };
    }
  }

  private publish(): void {
    const next = [...this.devices.values()].map((d) => this.report(d));
    const changed = JSON.stringify(next) !== JSON.stringify(this.reports);
    this.reports = next;
    if (changed) this.events.emit('change');
  }

  private report(d: AndroidDevice): DeviceReport {
    const entry = this.listed.get(d.localId);
    const ready = d.health.state === 'ready';
    const model = ready ? d.model : (entry?.model?.replace(/_/g, ' ') ?? d.model);
    return {
      localId: d.localId,
      platform: 'android',
      backend: 'android',
      model: model.slice(0, 200),
      os: d.os,
      name: `${d.avdName ?? model} (${d.localId})`.slice(0, 200),
      labels: ['emulator', ...(d.avdName ? [d.avdName.slice(0, 100)] : [])],
      health: ready ? 'ready' : 'broken',
      ...(d.health.state !== 'ready' ? { reason: d.health.reason.slice(0, 1000) } : {}),
    };
  }
}
