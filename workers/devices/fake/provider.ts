// The fake backend: a fixed number of deterministic devices. It is the double the layers above
// the platform boundary are tested with, and it says so in every report (backend "fake", label
// "fake"). Tests can make a device slow to prepare, fail its reset, or report itself broken.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeviceError, type AppTarget, type BackendProvider, type BackendStatus, type DeviceBackend, type DeviceReport } from '../backend.js';

export interface FakeOptions {
  platform?: BackendStatus['platform'];
  /** Time a prepare or reset takes. */
  operationMs?: number;
}

class FakeDevice implements DeviceBackend {
  failReset: string | undefined;
  failPrepare: string | undefined;
  app: AppTarget | null = null;
  prepares = 0;
  resets = 0;

  constructor(
    readonly localId: string,
    private readonly operationMs: number,
  ) {}

  async prepare(app: AppTarget | null, signal: AbortSignal): Promise<void> {
    await sleep(this.operationMs, undefined, { signal });
    if (this.failPrepare) throw new DeviceError('DEVICE_FAILED', this.failPrepare);
    this.app = app;
    this.prepares++;
  }

  async reset(signal: AbortSignal): Promise<void> {
    await sleep(this.operationMs, undefined, { signal });
    if (this.failReset) throw new DeviceError('DEVICE_FAILED', this.failReset);
    this.app = null;
    this.resets++;
  }
}

export class FakeProvider implements BackendProvider {
  readonly backend = 'fake' as const;
  private readonly events = new EventEmitter();
  private readonly broken = new Map<string, string>();
  private readonly devices: FakeDevice[];
  private readonly platform: BackendStatus['platform'];

  constructor(count: number, opts: FakeOptions = {}) {
    this.platform = opts.platform ?? 'web';
    this.devices = Array.from({ length: count }, (_, i) => new FakeDevice(`fake-${i + 1}`, opts.operationMs ?? 5));
  }

  async status(): Promise<BackendStatus> {
    return { backend: 'fake', platform: this.platform, available: true, detail: `${this.devices.length} deterministic test devices` };
  }

  async discover(): Promise<DeviceReport[]> {
    return this.devices.map((d, i) => {
      const reason = this.broken.get(d.localId);
      return {
        localId: d.localId,
        platform: this.platform,
        backend: 'fake',
        model: 'Fake Phone',
        os: 'fake 1.0',
        name: `Fake device ${i + 1}`,
        labels: ['fake'],
        health: reason ? 'broken' : 'ready',
        ...(reason ? { reason } : {}),
      };
    });
  }

  device(localId: string): FakeDevice | undefined {
    return this.devices.find((d) => d.localId === localId);
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
