// One iOS simulator behind the boundary. simctl boots, erases, launches and takes screenshots; the
// UI tool (AXe or idb) reads the accessibility tree and plays touches, text and keys, all in points;
// frames come from the native helper or from polled screenshots (frames.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DumpError, parseDump } from '../../understanding/sources/index.js';
import {
  DeviceError,
  type AppTarget,
  type DeviceBackend,
  type Frame,
  type HitElement,
  type Point,
  type PrepareOptions,
  type ScreenSize,
  type Screenshot,
  type TouchFrame,
  type TreeSnapshot,
} from '../backend.js';
import { readAppVersion } from './app-version.js';
import type { SimDevice } from './devices-list.js';
import { IosFrames } from './frames.js';
import type { HelperTimeouts } from './frame-helper.js';
import { resetSimulator, type ResetPolicy } from './reset.js';
import { measureScreen, pngSize, type MeasuredScreen } from './screen-size.js';
import type { Simctl } from './simctl.js';
import { IOS_SERVICES, unsupported, type PermissionOutcome, type PermissionRequest } from '../permissions.js';
import { planTouches } from './touch-plan.js';
import { isEmptySentinel, staleCompanion } from './empty-tree.js';
import { HID_KEYS, untypeable } from './ui-commands.js';
import { UI_TOOL_HINT, type UiTool } from './ui-tool.js';

export interface IosDeviceDeps {
  simctl: Simctl;
  /** The UI tool found at start, if any (the provider is unavailable without one). */
  ui: () => UiTool | undefined;
  helperPath: string | undefined;
  reset: ResetPolicy;
  pollMs: number;
  logger: Logger;
  helperTimeouts?: HelperTimeouts;
}

/**
 * How far a finger moves before UIKit starts scrolling. Apple does not document it; UIScrollView's
 * pan recogniser is commonly observed to begin after about 10 pt, which is what is assumed here
 * until a measurement on a real simulator replaces it.
 */
const UIKIT_TOUCH_SLOP_PT = 10;

export class IosDevice implements DeviceBackend {
  readonly platform = 'ios';
  readonly touchSlopPt = UIKIT_TOUCH_SLOP_PT;
  private measured: MeasuredScreen | undefined;
  private bundleId: string | null = null;
  private version: string | null = null;
  private readonly frames: IosFrames;

  constructor(
    private sim: SimDevice,
    private readonly deps: IosDeviceDeps,
  ) {
    this.frames = new IosFrames({
      helperPath: deps.helperPath,
      capture: async () => {
        const png = await deps.simctl.screenshot(this.udid);
        const size = pngSize(png) ?? { width: 0, height: 0 };
        return { data: png, format: 'png', width: size.width, height: size.height, pixelsPerPoint: this.measured ? size.width / this.measured.widthPt : 1 };
      },
      pollMs: deps.pollMs,
      logger: deps.logger,
      helperTimeouts: deps.helperTimeouts,
    });
  }

  get localId(): string {
    return this.sim.udid;
  }

  get model(): string {
    return `${this.sim.model} (simulator)`;
  }

  /** The provider's latest look at simctl's list. */
  update(sim: SimDevice): void {
    this.sim = sim;
  }

  /** Before the first prepare of a simulator its size is unknown: all zeros. */
  screen(): ScreenSize {
    const m = this.measured;
    return m ? { widthPt: m.widthPt, heightPt: m.heightPt, scale: m.scale } : { widthPt: 0, heightPt: 0, scale: 0 };
  }

  /** The frame source and its cost, for the provider's status; null before the first prepare. */
  describeFrames(): string | null {
    return this.measured ? this.frames.describe() : null;
  }

  async prepare(app: AppTarget | null, { signal }: PrepareOptions): Promise<void> {
    if (app && !app.bundleId) {
      throw new DeviceError(
        'VALIDATION_FAILED',
        `an iOS simulator opens apps by bundle id, and this session asked for ${app.url ? `the URL ${app.url}` : `the Android package ${app.package}`}`,
        app.url
          ? 'use a web device for a URL, or open Safari (bundleId com.apple.mobilesafari) and then open the URL'
          : 'give app.bundleId, e.g. com.example.app',
      );
    }
    const ui = this.requireUi();
    this.bundleId = this.version = null;
    await this.deps.simctl.boot(this.udid, signal);
    if (app?.bundleId) {
      await this.deps.simctl.terminate(this.udid, app.bundleId);
      await this.deps.simctl.launch(this.udid, app.bundleId, signal);
      this.bundleId = app.bundleId;
      this.version = await readAppVersion(this.deps.simctl, this.udid, app.bundleId).catch((err: Error) => {
        this.deps.logger.warn({ bundleId: app.bundleId, err: err.message }, 'could not read the app version');
        return null;
      });
    } else {
      await ui.home(this.udid);
    }
    // Measured with the app in front: the fallback reads the size from its accessibility tree.
    await this.measure();
    const m = this.measured!;
    await this.frames.activate({
      udid: this.udid,
      name: this.sim.name,
      runtime: this.sim.runtime,
      widthPt: m.widthPt,
      heightPt: m.heightPt,
      widthPx: m.widthPx,
      heightPx: m.heightPx,
    });
    this.frames.forget();
    this.frames.poke();
  }

  async reset(signal: AbortSignal): Promise<void> {
    const leftovers = await resetSimulator(this.deps.reset, this.deps.simctl, this.udid, this.bundleId, signal);
    if (leftovers.length) this.deps.logger.warn({ leftovers, policy: this.deps.reset }, 'the reset could not clear everything');
    this.bundleId = this.version = null;
    this.frames.forget();
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    return this.frames.onFrame(listener);
  }

  probe(): Promise<Frame> {
    return this.frames.probe();
  }

  async tree(): Promise<TreeSnapshot> {
    const ui = this.requireUi();
    const text = await ui.describe(this.udid);
    if (isEmptySentinel(text)) throw this.toolCause(staleCompanion(ui.kind, 'the request for the screen'));
    let snapshot: TreeSnapshot;
    try {
      snapshot = parseDump(text, { format: ui.format }).snapshot;
    } catch (err) {
      if (err instanceof DumpError)
        throw new DeviceError(
          'DEVICE_FAILED',
          `${ui.kind} described the screen in a form simfleet cannot read: ${err.message}`,
          `${err.hint ?? ''} (is the app in the foreground and the simulator unlocked?)`.trim(),
        );
      throw err;
    }
    this.lastCause = null;
    // The tree is in points; the scale is the simulator's (a dump does not say).
    return { ...snapshot, screen: { widthPt: snapshot.screen.widthPt, heightPt: snapshot.screen.heightPt, scale: this.measured?.scale ?? 0 } };
  }

  /**
   * The platform's hit test, where the UI tool has one (idb's `ui describe-point`; AXe has none, and
   * then the device offers no hit test at all rather than one that always misses). One tool process
   * per point, two at a time: probing spends at most 64 of them on a screen.
   */
  get hitTest(): ((points: Point[]) => Promise<(HitElement | null)[]>) | undefined {
    const ui = this.deps.ui();
    if (!ui?.canDescribePoint) return undefined;
    return async (points) => {
      const out: (HitElement | null)[] = [];
      for (let i = 0; i < points.length; i += 2) out.push(...(await Promise.all(points.slice(i, i + 2).map((p) => this.elementAt(ui, p)))));
      return out;
    };
  }

  private async elementAt(ui: UiTool, p: Point): Promise<HitElement | null> {
    const text = (await ui.describePoint(this.udid, p)).trim();
    if (!text || text === '{}' || text === '[]' || text === 'null') return null;
    if (isEmptySentinel(text)) throw this.toolCause(staleCompanion(ui.kind, `the hit test at ${p.x},${p.y}`));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new DeviceError(
        'DEVICE_FAILED',
        `${ui.kind} described the element at ${p.x},${p.y} in a form simfleet cannot read`,
        'run the same describe-point command by hand to see what it prints',
      );
    }
    // One element's object (as idb prints it), or a list holding it.
    const list = Array.isArray(parsed) ? parsed : [parsed];
    let nodes: TreeSnapshot['nodes'];
    try {
      nodes = parseDump(JSON.stringify(list), { format: ui.format }).snapshot.nodes;
    } catch (err) {
      if (!(err instanceof DumpError)) throw err;
      throw new DeviceError('DEVICE_FAILED', `${ui.kind} described the element at ${p.x},${p.y} in a form simfleet cannot read: ${err.message}`, err.hint);
    }
    // The deepest node that holds the point is what a touch there reaches.
    const holding = nodes.filter((n) => p.x >= n.frame.x && p.x < n.frame.x + n.frame.width && p.y >= n.frame.y && p.y < n.frame.y + n.frame.height);
    const hit = holding.at(-1) ?? nodes.at(-1);
    return hit ? { role: hit.role, label: hit.label, frame: hit.frame, id: hit.id, interactive: hit.interactive } : null;
  }

  /** The bundle this session launched: simctl has no dependable way to ask which app is in front. */
  foreground(): string | null {
    return this.bundleId;
  }

  appVersion(): string | null {
    return this.version;
  }

  /**
   * `simctl privacy <udid> grant|revoke|reset <service> <bundle>`: the app's TCC entries, set with
   * no prompt shown. simctl warns that some changes terminate the app if it is running.
   */
  async setPermission({ action, permission }: PermissionRequest): Promise<PermissionOutcome> {
    const service = IOS_SERVICES[permission];
    if (!service) throw unsupported('ios', permission, '`simctl privacy` has no such service');
    if (!this.bundleId) throw unsupported('ios', permission, 'the session has no app to set it for (start it with app.bundleId)');
    await this.deps.simctl.privacy(this.udid, action, service, this.bundleId);
    return { app: this.bundleId, applied: [service], note: 'simctl may terminate the app when a permission changes; launch it again if it is gone' };
  }

  async touch(frames: TouchFrame[]): Promise<void> {
    const ui = this.requireUi();
    const plan = planTouches(frames);
    const started = performance.now();
    for (const step of plan) {
      const wait = step.startMs - (performance.now() - started);
      if (wait > 0) await sleep(wait);
      if (step.kind === 'tap') await ui.tap(this.udid, step.at);
      else if (step.kind === 'press') await ui.press(this.udid, step.at, step.holdMs);
      else await ui.swipe(this.udid, step.from, step.to, step.durationMs, step.deltaPt);
    }
    this.frames.poke();
  }

  async type(text: string): Promise<void> {
    const ui = this.requireUi();
    const bad = untypeable(text);
    if (bad.length) {
      throw new DeviceError(
        'VALIDATION_FAILED',
        `${ui.kind} types US-keyboard characters only; ${bad.map((c) => JSON.stringify(c)).join(', ')} cannot be typed`,
        'type the text without those characters, or paste it into the app another way',
      );
    }
    // Newlines and tabs go as the Enter and Tab keys: the tools read text line by line.
    for (const part of text.split(/([\n\t])/)) {
      if (part === '\n') await ui.key(this.udid, HID_KEYS.Enter!);
      else if (part === '\t') await ui.key(this.udid, HID_KEYS.Tab!);
      else if (part) await ui.type(this.udid, part);
    }
    this.frames.poke();
  }

  async key(name: string): Promise<void> {
    const code = HID_KEYS[name];
    if (code === undefined)
      throw new DeviceError(
        'VALIDATION_FAILED',
        `no key named ${JSON.stringify(name)} on an iOS simulator`,
        `use one of ${Object.keys(HID_KEYS).join(', ')}; type() for characters`,
      );
    await this.requireUi().key(this.udid, code);
    this.frames.poke();
  }

  async open(url: string): Promise<void> {
    await this.deps.simctl.openUrl(this.udid, url);
    this.frames.poke();
  }

  /** The session's app afresh: terminated, then launched as prepare() launched it. */
  async launch(): Promise<void> {
    const bundleId = this.bundleId;
    if (!bundleId)
      throw new DeviceError('VALIDATION_FAILED', 'this session opened no app, so there is none to launch again', 'create the session with app.bundleId');
    await this.deps.simctl.terminate(this.udid, bundleId);
    await this.deps.simctl.launch(this.udid, bundleId);
    this.frames.poke();
  }

  back(): Promise<void> {
    return Promise.reject(
      new DeviceError(
        'DEVICE_FAILED',
        'iOS has no back key',
        'tap the back button in the outline (usually at the top left), or swipe right from the left edge',
      ),
    );
  }

  /** A page reload has no iOS meaning; the nearest is the app launched again. */
  reload(): Promise<void> {
    return this.launch();
  }

  async screenshot(): Promise<Screenshot> {
    const png = await this.deps.simctl.screenshot(this.udid);
    const size = pngSize(png);
    if (!size) throw new DeviceError('DEVICE_FAILED', 'the screenshot simctl returned has no PNG header');
    const scale = this.measured ? size.width / this.measured.widthPt : 0;
    return { png, width: size.width, height: size.height, scale };
  }

  async close(): Promise<void> {
    await this.frames.close();
  }

  /** Reads the screen size once per device (it does not change without a new device type). */
  async measure(): Promise<void> {
    if (this.measured) return;
    this.measured = await measureScreen(this.deps.simctl, this.udid, async () => {
      const [png, tree] = await Promise.all([this.deps.simctl.screenshot(this.udid), this.tree()]);
      return { png, widthPt: tree.screen.widthPt, heightPt: tree.screen.heightPt };
    }).catch((err: Error) => {
      throw new DeviceError(
        'DEVICE_FAILED',
        `could not tell the size of simulator ${this.sim.name}'s screen: ${err.message}`,
        'check that it is booted and that the UI tool can read its accessibility tree',
      );
    });
    this.deps.logger.info({ screen: this.measured }, 'simulator screen measured');
  }

  /** The last failure whose cause is known (a stale companion), for the provider's status; logged once per cause. */
  lastCause: { cause: string; message: string; hint: string; at: number } | null = null;

  private toolCause(err: DeviceError): DeviceError {
    const cause = String(err.details?.cause ?? 'unknown');
    if (this.lastCause?.cause !== cause) this.deps.logger.error({ cause, hint: err.hint }, err.message);
    this.lastCause = { cause, message: err.message, hint: err.hint ?? '', at: Date.now() };
    return err;
  }

  private get udid(): string {
    return this.sim.udid;
  }

  private requireUi(): UiTool {
    const ui = this.deps.ui();
    if (!ui) throw new DeviceError('DEVICE_FAILED', 'no accessibility and input tool (AXe or idb) was found on this host', UI_TOOL_HINT);
    return ui;
  }
}
