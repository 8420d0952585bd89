// One Android emulator behind the boundary. Units: the boundary speaks points, which on Android are
// dp; the device speaks pixels. density = densityDpi / 160 (`wm density`), so a dp is `density`
// pixels: trees are read in pixels and divided by it, touches arrive in dp and are multiplied by it.
// Frames are timed captures passed on only when they change (PolledFrames), because nothing on the
// emulator says when its screen changed; they come from the console's screenshots when the console
// is reachable, from `adb exec-out screencap -p` otherwise.
// There is no inputsReceived(): Android cannot count the inputs an app received without
// instrumentation inside the app, so an action that changes nothing "may not have been delivered".
import type { Logger } from 'pino';
import {
  DeviceError,
  type AppTarget,
  type DeviceBackend,
  type Frame,
  type PrepareOptions,
  type ScreenSize,
  type Screenshot,
  type TouchFrame,
  type TreeSnapshot,
} from '../backend.js';
import { PolledFrames } from '../polled-frames.js';
import { DEFAULT_RULES, OriginPolicy } from '../origin-policy.js';
import { type Adb, firstLine } from './adb.js';
import { AppControl, type ConsoleAccess, type ResetPolicy } from './apps.js';
import type { EmulatorConsole } from './console.js';
import { type Png, ScreenSource } from './capture.js';
import { ForegroundWatch } from './foreground.js';
import { setAndroidPermission } from './permissions.js';
import type { PermissionOutcome, PermissionRequest } from '../permissions.js';
import { keyCommand, textCommands } from './keys-text.js';
import { parseWmDensity, parseWmSize, type PixelSize } from './shell-output.js';
import { readTree } from './tree.js';
import { assertOneFinger, playOnAdb, playOnConsole } from './touch.js';

/** ViewConfiguration's TOUCH_SLOP: a finger moves 8 dp before a scroll starts. */
const ANDROID_TOUCH_SLOP_DP = 8;

export type AndroidHealth = { state: 'booting'; reason: string } | { state: 'ready' } | { state: 'broken'; reason: string };

export interface AndroidDeviceOptions {
  serial: string;
  adb: Adb;
  /** The emulator's console client (null: no console, everything through adb). */
  console: EmulatorConsole | null;
  reset: ResetPolicy;
  /** The host's APK folder: a session's missing app is installed from `<package>.apk` there. */
  apkDir?: string;
  /** Time between captures while the screen moves. */
  pollMs: number;
  logger: Logger;
}

export class AndroidDevice implements DeviceBackend {
  readonly platform = 'android';
  readonly touchSlopPt = ANDROID_TOUCH_SLOP_DP;
  model = 'Android emulator';
  os = 'Android';
  avdName: string | null = null;
  health: AndroidHealth = { state: 'booting', reason: 'not read yet' };
  private density = 1;
  private px: PixelSize = { width: 0, height: 0 };
  private consoleWhy: string | null = 'not checked yet';
  private readonly source: ScreenSource;
  private readonly frames: PolledFrames;
  private readonly dumpMs: number[] = [];
  private readonly foregroundWatch: ForegroundWatch;
  private readonly apps: AppControl;
  private readonly policy = new OriginPolicy(DEFAULT_RULES, []);
  private app: string | null = null;

  constructor(private readonly opts: AndroidDeviceOptions) {
    this.source = new ScreenSource(opts.adb, opts.serial, opts.console, { why: () => this.consoleWhy, lost: (why) => (this.consoleWhy = why) }, opts.logger);
    this.foregroundWatch = new ForegroundWatch(opts.adb, opts.serial, opts.logger);
    this.apps = new AppControl(
      opts.adb,
      opts.serial,
      opts.reset,
      () => this.consoleAccess(),
      () => this.readScreen(),
      opts.apkDir ?? null,
    );
    this.frames = new PolledFrames({
      capture: async () => this.asCapture(await this.source.take()),
      fastMs: opts.pollMs,
      slowMs: opts.pollMs * 4,
      onError: (err) => opts.logger.warn({ err: firstLine(err.message) }, 'screen capture failed'),
    });
  }

  get localId(): string {
    return this.opts.serial;
  }

  /** Reads what the device is (size, density, names); the provider calls it until the device is up. */
  async init(): Promise<void> {
    // One shell call for all four: every adb call is a round trip (and a process) of its own.
    const names = ['sys.boot_completed', 'ro.product.model', 'ro.build.version.release', 'ro.boot.qemu.avd_name'];
    const out = await this.opts.adb.shell(this.opts.serial, names.map((n) => `getprop ${n}`).join('; '), { timeoutMs: 5000 });
    const [booted, model, release, avdProp] = out.split(/\r?\n/).map((l) => l.trim());
    if (booted !== '1') {
      this.health = { state: 'booting', reason: 'Android is still booting (sys.boot_completed is not 1)' };
      return;
    }
    await this.readScreen();
    this.model = model || 'Android emulator';
    this.os = `Android ${release || '(unknown version)'}`;
    await this.checkConsole();
    const avdName = this.opts.console && !this.consoleWhy ? await this.opts.console.avdName().catch(() => '') : '';
    this.avdName = avdName || avdProp || null;
    this.health = { state: 'ready' };
    void this.foregroundWatch.refresh();
  }

  /** Whether the console answers; it is asked again while it does not. */
  async checkConsole(): Promise<void> {
    if (!this.opts.console) {
      this.consoleWhy = 'this device has no emulator console';
      return;
    }
    try {
      await this.opts.console.ping();
      this.consoleWhy = null;
    } catch (err) {
      this.consoleWhy = (err as Error).message;
    }
  }

  get consoleDown(): boolean {
    return this.consoleWhy !== null;
  }

  /** What the status reports: where frames come from and what they and the tree cost. */
  costs(): { frameSource: string; captureMedianMs: number | null; dumpMedianMs: number | null } {
    const sorted = [...this.dumpMs].sort((a, b) => a - b);
    return {
      frameSource: this.source.viaConsole ? 'console screenshots' : 'adb screencap polling',
      captureMedianMs: this.frames.cost().medianMs,
      dumpMedianMs: sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]!) : null,
    };
  }

  screen(): ScreenSize {
    const round = (v: number) => Math.round(v * 100) / 100;
    return { widthPt: round(this.px.width / this.density), heightPt: round(this.px.height / this.density), scale: this.density };
  }

  async prepare(app: AppTarget | null, { signal, origins }: PrepareOptions): Promise<void> {
    if (app && !app.package) {
      throw new DeviceError(
        'VALIDATION_FAILED',
        `an Android device opens apps by package, and this session names ${app.url ? 'a url' : 'a bundleId'}`,
        'give app.package (e.g. "com.android.settings"); to open a web page, start without an app and open the URL',
      );
    }
    this.policy.use(origins);
    const pkg = app?.package ?? null;
    await this.apps.forSession(pkg, signal);
    if (pkg) this.foregroundWatch.forget(pkg);
    this.app = pkg;
    signal.throwIfAborted();
    await this.apps.launch(pkg);
    this.frames.forget();
    this.afterInput();
  }

  async reset(signal: AbortSignal): Promise<void> {
    await this.apps.clean(this.app ? [this.app] : [], signal);
    if (this.app) this.foregroundWatch.forget(this.app);
    this.app = null;
    this.policy.use(DEFAULT_RULES);
    this.frames.forget();
    this.afterInput();
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    return this.frames.onFrame(listener);
  }

  async probe(): Promise<Frame> {
    const frame = await this.frames.probe();
    this.foregroundWatch.refreshSoon();
    return frame;
  }

  /** uiautomator waits for the screen to idle and walks every window: about 1–2 s on an emulator. */
  async tree(): Promise<TreeSnapshot> {
    const snapshot = await readTree(this.opts.adb, this.opts.serial, this.px, this.density);
    this.dumpMs.push(snapshot.durationMs);
    if (this.dumpMs.length > 20) this.dumpMs.shift();
    return snapshot;
  }

  foreground(): string | null {
    return this.foregroundWatch.package;
  }

  appVersion(): string | null {
    return this.foregroundWatch.version;
  }

  async setPermission(req: PermissionRequest): Promise<PermissionOutcome> {
    const out = await setAndroidPermission(this.opts.adb, this.opts.serial, this.app, req);
    // A revoke stops the app: what is in front may have changed.
    if (req.action !== 'grant') this.afterInput();
    return out;
  }

  /** Settles the foreground reading (for callers that must see an action's effect on it). */
  refreshForeground(): Promise<void> {
    return this.foregroundWatch.refresh();
  }

  async touch(frames: TouchFrame[]): Promise<void> {
    if (!frames.some((f) => f.touches.length > 0)) return;
    if (this.opts.console && !this.consoleWhy) {
      await playOnConsole(this.opts.console, frames, this.density, this.px);
    } else {
      assertOneFinger(frames, this.consoleWhy ?? '');
      await playOnAdb(this.opts.adb, this.opts.serial, frames, this.density);
    }
    this.afterInput();
  }

  async type(text: string): Promise<void> {
    const commands = textCommands(text);
    if (commands.length === 0) return;
    await this.opts.adb.shell(this.opts.serial, commands.join('; '), { timeoutMs: 30_000 });
    this.afterInput();
  }

  async key(name: string): Promise<void> {
    await this.opts.adb.shell(this.opts.serial, keyCommand(name));
    this.afterInput();
  }

  async open(url: string): Promise<void> {
    let scheme: string;
    try {
      scheme = new URL(url).protocol;
    } catch {
      throw new DeviceError('VALIDATION_FAILED', `${JSON.stringify(url)} is not a URL`);
    }
    // Web pages pass the farm's origin rules; an app's own link scheme is the app's business, but
    // nothing may point the device's browser at its files or at script.
    if (scheme === 'http:' || scheme === 'https:') await this.policy.check(url);
    else if (['file:', 'javascript:', 'content:', 'data:'].includes(scheme))
      throw new DeviceError('ORIGIN_NOT_ALLOWED', `${scheme} links are not opened on devices`);
    await this.apps.open(url);
    this.afterInput();
  }

  async launch(): Promise<void> {
    await this.apps.launch(this.app);
    this.afterInput();
  }

  async back(): Promise<void> {
    await this.key('Back');
  }

  async reload(): Promise<void> {
    await this.launch();
  }

  async screenshot(): Promise<Screenshot> {
    const png = await this.source.take();
    return { png: png.data, width: png.size.width, height: png.size.height, scale: this.density };
  }

  async close(): Promise<void> {
    this.frames.stop();
    this.foregroundWatch.stop();
    this.opts.console?.close();
    await this.source.close();
  }

  private async readScreen(): Promise<void> {
    const out = await this.opts.adb.shell(this.opts.serial, 'wm size; wm density');
    this.px = parseWmSize(out);
    this.density = parseWmDensity(out) / 160;
  }

  private consoleAccess(): ConsoleAccess {
    return this.opts.console && !this.consoleWhy ? { console: this.opts.console } : { console: null, why: this.consoleWhy ?? 'no console' };
  }

  private asCapture(png: Png) {
    return {
      data: png.data,
      format: 'png' as const,
      width: png.size.width,
      height: png.size.height,
      pixelsPerPoint: png.size.width / (this.px.width / this.density || png.size.width),
    };
  }

  private afterInput(): void {
    this.frames.poke();
    this.foregroundWatch.refreshSoon();
  }
}
