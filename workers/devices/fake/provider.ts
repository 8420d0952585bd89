// The fake backend: a fixed number of deterministic devices. It is the double the layers above
// the platform boundary are tested with, and it says so in every report (backend "fake", label
// "fake"). Tests can make a device slow to prepare or to read, fail its reset, or report itself broken.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import {
  DeviceError,
  type AppTarget,
  type BackendProvider,
  type BackendStatus,
  type DeviceBackend,
  type DeviceReport,
  type Frame,
  type PrepareOptions,
  type Screenshot,
  type TouchFrame,
  type TreeSnapshot,
} from '../backend.js';
import { FAKE_SCREEN, FAKE_SCREENS, fakeFrame, fakeTree, type FakeScreen } from './app.js';

export interface FakeOptions {
  platform?: BackendStatus['platform'];
  /** Time a prepare or reset takes. */
  operationMs?: number;
  /** Labels every device of this provider reports (default: just `fake`). */
  labels?: readonly string[];
}

export class FakeDevice implements DeviceBackend {
  readonly touchSlopPt = 0;
  readonly platform = 'web';
  readonly model = 'fake phone';
  failReset: string | undefined;
  /** Fails only the next this many resets (a transient fault), with `failReset` or a default reason. */
  failResets = 0;
  failPrepare: string | undefined;
  /** Time reading the tree takes, as on a host too busy for its devices. */
  treeMs = 0;
  app: AppTarget | null = null;
  prepares = 0;
  resets = 0;
  typed = '';
  readonly keys: string[] = [];
  private current: FakeScreen = FAKE_SCREENS.home!;
  private readonly frames = new EventEmitter();

  constructor(
    readonly localId: string,
    private readonly operationMs: number,
  ) {}

  screen() {
    return { ...FAKE_SCREEN };
  }

  get screenName(): string {
    return this.current.name;
  }

  async prepare(app: AppTarget | null, { signal }: PrepareOptions): Promise<void> {
    await sleep(this.operationMs, undefined, { signal });
    if (this.failPrepare) throw new DeviceError('DEVICE_FAILED', this.failPrepare);
    this.app = app;
    this.prepares++;
    this.show('home');
  }

  async reset(signal: AbortSignal): Promise<void> {
    await sleep(this.operationMs, undefined, { signal });
    if (this.failResets > 0) {
      this.failResets--;
      throw new DeviceError('DEVICE_FAILED', this.failReset ?? 'a transient reset failure');
    }
    if (this.failReset) throw new DeviceError('DEVICE_FAILED', this.failReset);
    this.app = null;
    this.typed = '';
    this.resets++;
    this.show('home');
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.frames.on('frame', listener);
    return () => this.frames.off('frame', listener);
  }

  async tree(): Promise<TreeSnapshot> {
    if (this.treeMs) await sleep(this.treeMs);
    return { nodes: fakeTree(this.current), skippedInvisible: 0, screen: this.screen(), durationMs: 0 };
  }

  /** A tap (a touch that starts and ends in one element) on an element that goes somewhere goes there. */
  /** Inputs received, for the delivery probe: the fake always receives what it is sent. */
  private inputs = 0;

  async inputsReceived(): Promise<number> {
    return this.inputs;
  }

  async touch(frames: TouchFrame[]): Promise<void> {
    this.inputs++;
    const first = frames[0]?.touches[0];
    const last = [...frames].reverse().find((f) => f.touches.length > 0)?.touches[0];
    if (!first || !last) return;
    const hit = this.current.elements.find((e) => inside(first, e.frame) && inside(last, e.frame));
    if (hit?.goesTo) this.show(hit.goesTo);
  }

  async type(text: string): Promise<void> {
    this.inputs++;
    this.typed += text;
  }

  async key(name: string): Promise<void> {
    this.inputs++;
    this.keys.push(name);
  }

  /** A host under the reserved .invalid domain does not resolve, as on a real device. */
  async open(url: string): Promise<void> {
    const host = URL.canParse(url) ? new URL(url).hostname : '';
    if (host.endsWith('.invalid')) throw new DeviceError('APP_UNREACHABLE', `cannot resolve ${host}: getaddrinfo ENOTFOUND ${host}`, 'check the host name');
    this.show('home');
  }

  async launch(): Promise<void> {
    this.show('home');
  }

  async back(): Promise<void> {
    if (this.current.name !== 'home') this.show('home');
  }

  async reload(): Promise<void> {
    this.show(this.current.name);
  }

  foreground(): string | null {
    return 'fake-app';
  }

  async probe(): Promise<Frame> {
    return this.frameOf(this.current);
  }

  /** The current screen's frame as a PNG, one pixel per point: `look` works on a fake farm too. */
  async screenshot(): Promise<Screenshot> {
    const png = await sharp(fakeFrame(this.current), { raw: { width: FAKE_SCREEN.widthPt, height: FAKE_SCREEN.heightPt, channels: 4 } })
      .png()
      .toBuffer();
    return { png, width: FAKE_SCREEN.widthPt, height: FAKE_SCREEN.heightPt, scale: 1 };
  }

  /** Test hook: shows one of the fake app's screens, as if the app had moved there by itself. */
  showScreen(name: string): void {
    if (!FAKE_SCREENS[name]) throw new Error(`the fake app has no screen ${name}`);
    this.show(name);
  }

  private show(name: string): void {
    this.current = FAKE_SCREENS[name]!;
    this.frames.emit('frame', this.frameOf(this.current));
  }

  private frameOf(screen: FakeScreen): Frame {
    return {
      data: fakeFrame(screen),
      format: 'raw',
      width: FAKE_SCREEN.widthPt,
      height: FAKE_SCREEN.heightPt,
      pixelsPerPoint: 1,
      receivedAt: performance.now(),
    };
  }
}

const inside = (p: { x: number; y: number }, r: { x: number; y: number; width: number; height: number }) =>
  p.x >= r.x && p.x < r.x + r.width && p.y >= r.y && p.y < r.y + r.height;

export class FakeProvider implements BackendProvider {
  readonly backend = 'fake' as const;
  private readonly events = new EventEmitter();
  private readonly broken = new Map<string, string>();
  private readonly devices: FakeDevice[];
  private readonly platform: BackendStatus['platform'];
  private readonly labels: readonly string[];
  /** Test hook: the backend is still starting (as a browser launching): it offers no device yet. */
  private starting = false;

  constructor(count: number, opts: FakeOptions = {}) {
    this.platform = opts.platform ?? 'web';
    this.labels = opts.labels ?? ['fake'];
    this.devices = Array.from({ length: count }, (_, i) => new FakeDevice(`fake-${i + 1}`, opts.operationMs ?? 5));
  }

  async start(): Promise<void> {}

  async status(): Promise<BackendStatus> {
    if (this.starting) return { backend: 'fake', platform: this.platform, available: false, detail: 'starting', starting: true };
    return { backend: 'fake', platform: this.platform, available: true, detail: `${this.devices.length} deterministic test devices` };
  }

  async discover(): Promise<DeviceReport[]> {
    if (this.starting) return [];
    return this.devices.map((d, i) => {
      const reason = this.broken.get(d.localId);
      return {
        localId: d.localId,
        platform: this.platform,
        backend: 'fake',
        model: 'Fake Phone',
        os: 'fake 1.0',
        name: `Fake device ${i + 1}`,
        labels: [...this.labels],
        health: reason ? 'broken' : 'ready',
        ...(reason ? { reason } : {}),
      };
    });
  }

  device(localId: string): FakeDevice | undefined {
    return this.devices.find((d) => d.localId === localId);
  }

  /** Test hook: start out (or end up) still starting, as a backend whose browser is launching. */
  setStarting(starting: boolean): void {
    this.starting = starting;
    this.events.emit('change');
  }

  /** Test hook: report a device broken (or healthy again with `undefined`). */
  setBroken(localId: string, reason: string | undefined): void {
    if (reason) this.broken.set(localId, reason);
    else this.broken.delete(localId);
    this.events.emit('change');
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  async close(): Promise<void> {
    this.events.removeAllListeners();
  }
}
