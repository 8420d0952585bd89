// The iOS backend on this host: the iPhone and iPad simulators `xcrun simctl list devices -j`
// reports on iOS runtimes, driven with simctl plus a UI tool (AXe or idb). Off macOS it reports
// itself unavailable without running anything. The device list is read again every few seconds;
// a simulator that appears, disappears or changes health is announced through onChange.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { BackendProvider, BackendStatus, DeviceReport } from '../backend.js';
import { IosDevice } from './device.js';
import { healthOf, type SimDevice } from './devices-list.js';
import type { HelperTimeouts } from './frame-helper.js';
import type { ResetPolicy } from './reset.js';
import { Simctl, XCODE_HINT } from './simctl.js';
import { findUiTool, type UiTool } from './ui-tool.js';

export interface IosOptions {
  /** The xcrun that runs simctl ('xcrun' finds it on the PATH). */
  xcrun: string;
  /** Which tree-and-input tool to use; 'auto' takes AXe, then idb. */
  uiTool: 'auto' | 'axe' | 'idb';
  /** Its executable, when it is not on the PATH. */
  uiToolPath?: string;
  /** The native frame helper (native/ios-frames); without it, frames come from polled screenshots. */
  frameHelper?: string;
  /** How a simulator is cleaned between sessions (see reset.ts for what each clears). */
  reset: ResetPolicy;
  /** Time between screenshots while the screen moves, when frames are polled (default 250 ms; four times that once still). */
  pollMs?: number;
  /** The host's platform; tests set it (default process.platform). */
  platform?: NodeJS.Platform;
  logger: Logger;
  /** Tests shorten the native helper's deadlines. */
  helperTimeouts?: HelperTimeouts;
}

export const MAC_HINT = 'iOS simulators need a Mac with Xcode; run the worker there';
const DISCOVERY_MS = 5000;

type Stage =
  | { kind: 'not-started' }
  | { kind: 'not-mac'; platform: string }
  | { kind: 'no-xcode'; reason: string; hint: string }
  | { kind: 'running'; simctlPath: string };

export class IosProvider implements BackendProvider {
  readonly backend = 'ios' as const;
  private readonly events = new EventEmitter();
  private readonly simctl: Simctl;
  private stage: Stage = { kind: 'not-started' };
  private ui: UiTool | undefined;
  private uiProblem: { missing: string; hint: string } | undefined;
  private sims: SimDevice[] = [];
  private listProblem: string | undefined;
  private readonly devices = new Map<string, IosDevice>();
  private timer: NodeJS.Timeout | undefined;
  private lastReport = '';
  private closed = false;

  constructor(private readonly opts: IosOptions) {
    this.simctl = new Simctl(opts.xcrun || 'xcrun');
  }

  async start(): Promise<void> {
    const platform = this.opts.platform ?? process.platform;
    if (platform !== 'darwin') {
      this.stage = { kind: 'not-mac', platform };
      this.opts.logger.info({ platform }, 'the ios backend is unavailable: not a Mac');
      return;
    }
    try {
      this.stage = { kind: 'running', simctlPath: await this.simctl.locate() };
    } catch (err) {
      const e = err as Error & { hint?: string };
      this.stage = { kind: 'no-xcode', reason: e.message, hint: e.hint ?? XCODE_HINT };
      this.opts.logger.warn({ reason: e.message }, 'the ios backend is unavailable: simctl not found');
      return;
    }
    const probe = await findUiTool(this.opts.uiTool, this.opts.uiToolPath);
    if ('tool' in probe) this.ui = probe.tool;
    else {
      this.uiProblem = probe;
      this.opts.logger.warn({ reason: probe.missing }, 'the ios backend has no UI tool; its simulators are reported broken');
    }
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), DISCOVERY_MS);
    this.timer.unref();
  }

  async status(): Promise<BackendStatus> {
    const base = { backend: 'ios', platform: 'ios' } as const;
    switch (this.stage.kind) {
      case 'not-started':
        return { ...base, available: false, detail: 'not started' };
      case 'not-mac':
        return { ...base, available: false, detail: `this host runs ${this.stage.platform}, not macOS; xcrun was not run`, hint: MAC_HINT };
      case 'no-xcode':
        return { ...base, available: false, detail: this.stage.reason, hint: this.stage.hint };
    }
    const simctl = `simctl at ${this.stage.simctlPath}`;
    if (!this.ui)
      return { ...base, available: false, detail: `${simctl}; no UI tool: ${this.uiProblem?.missing ?? 'not looked for'}`, hint: this.uiProblem?.hint };
    const frames = this.opts.frameHelper
      ? `native frame helper ${this.opts.frameHelper}, screenshot polling when it cannot run`
      : 'screenshot polling (no native frame helper configured)';
    const perDevice = [...this.devices.values()].flatMap((d) => {
      const frames = d.describeFrames();
      return frames ? [`${d.localId}: ${frames}`] : [];
    });
    const causes = [...this.devices.values()].flatMap((d) => (d.lastCause ? [{ id: d.localId, ...d.lastCause }] : []));
    const parts = [
      ...causes.map((c) => `${c.id}: ${c.cause}: ${c.message}`),
      simctl,
      this.ui.label,
      `reset by ${this.opts.reset}`,
      `frames: ${frames}`,
      ...(perDevice.length ? [`frame cost: ${perDevice.join('; ')}`] : []),
      `${this.sims.length} iPhone/iPad simulator(s)`,
      ...(this.listProblem ? [`last device list failed: ${this.listProblem}`] : []),
    ];
    // A known cause on a device (a stale idb companion) is the operator's to fix: its hint is the backend's.
    const hint = [...new Set(causes.map((c) => c.hint))].join('; ');
    return { ...base, available: true, detail: parts.join('; '), ...(hint ? { hint } : {}) };
  }

  async discover(): Promise<DeviceReport[]> {
    return this.sims.map((sim) => {
      const health = this.ui ? healthOf(sim) : ({ ready: false, reason: `no UI tool on this host: ${this.uiProblem?.missing ?? 'not looked for'}` } as const);
      return {
        localId: sim.udid,
        platform: 'ios',
        backend: 'ios',
        model: sim.model,
        os: sim.runtime,
        name: sim.name,
        labels: ['simulator', sim.runtime, sim.family],
        health: health.ready ? 'ready' : 'broken',
        ...(health.ready ? {} : { reason: health.reason }),
      };
    });
  }

  device(localId: string): IosDevice | undefined {
    return this.devices.get(localId);
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.devices.values()].map((d) => d.close()));
    this.devices.clear();
    this.events.removeAllListeners();
  }

  /** Reads simctl's list, keeps one IosDevice per simulator, and says when the answer changed. */
  private async refresh(): Promise<void> {
    if (this.closed || this.stage.kind !== 'running') return;
    try {
      this.sims = await this.simctl.listDevices();
      this.listProblem = undefined;
    } catch (err) {
      this.listProblem = (err as Error).message;
      this.opts.logger.warn({ err: this.listProblem }, 'could not list the simulators');
      return;
    }
    if (this.closed) return;
    const seen = new Set<string>();
    for (const sim of this.sims) {
      seen.add(sim.udid);
      const known = this.devices.get(sim.udid);
      if (known) known.update(sim);
      else {
        const deps = {
          simctl: this.simctl,
          ui: () => this.ui,
          helperPath: this.opts.frameHelper,
          reset: this.opts.reset,
          pollMs: this.opts.pollMs ?? 250,
          helperTimeouts: this.opts.helperTimeouts,
        };
        this.devices.set(sim.udid, new IosDevice(sim, { ...deps, logger: this.opts.logger.child({ localId: sim.udid }) }));
      }
    }
    for (const [udid, device] of this.devices) {
      if (seen.has(udid)) continue;
      this.devices.delete(udid);
      void device.close();
    }
    const report = JSON.stringify(await this.discover());
    if (report !== this.lastReport) {
      this.lastReport = report;
      this.events.emit('change');
    }
  }
}
