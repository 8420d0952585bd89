// The fake backend: a fixed number of deterministic devices that are always healthy. It is the
// double the layers above the platform boundary are tested with, and it says so in every report
// (backend "fake", label "fake").
import { EventEmitter } from 'node:events';
import type { BackendProvider, BackendStatus, DeviceReport } from '../backend.js';

export class FakeProvider implements BackendProvider {
  readonly backend = 'fake' as const;
  private readonly events = new EventEmitter();
  private broken = new Map<string, string>();

  constructor(
    private readonly count: number,
    private readonly platform: BackendStatus['platform'] = 'web',
  ) {}

  async status(): Promise<BackendStatus> {
    return { backend: 'fake', platform: this.platform, available: true, detail: `${this.count} deterministic test devices` };
  }

  async discover(): Promise<DeviceReport[]> {
    return Array.from({ length: this.count }, (_, i) => {
      const localId = `fake-${i + 1}`;
      const reason = this.broken.get(localId);
      return {
        localId,
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
