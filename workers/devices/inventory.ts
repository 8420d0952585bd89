// Everything this host offers, gathered from every backend: the body of a hello or devices message.
import type { components } from '../../openapi/generated/types.js';
import { sumPageMemory, type BackendProvider, type BackendStatus, type DeviceBackend, type PageMemory } from './backend.js';
import type { Lease } from './leases.js';

export interface InventorySnapshot {
  backends: BackendStatus[];
  devices: components['schemas']['WorkerDevice'][];
}

export class Inventory {
  private readonly owners = new Map<string, BackendProvider>();
  leaseOf: (localId: string) => Lease | null = () => null;
  /** Called after every snapshot with the devices it found (perception opens their eyes). */
  onDevices: (devices: { localId: string; backend: DeviceBackend | undefined }[]) => void = () => undefined;

  constructor(private readonly providers: readonly BackendProvider[]) {}

  /** Starts every backend; one that fails to start says why in its status, it does not stop the others. */
  async start(): Promise<void> {
    await Promise.all(this.providers.map((p) => p.start()));
  }

  async snapshot(): Promise<InventorySnapshot> {
    const backends = await Promise.all(this.providers.map((p) => p.status()));
    const lists = await Promise.all(
      this.providers.map(async (p, i) => {
        const found = backends[i]!.available ? await p.discover() : [];
        for (const d of found) this.owners.set(d.localId, p);
        return found;
      }),
    );
    const devices = lists.flat();
    this.onDevices(devices.map((d) => ({ localId: d.localId, backend: this.device(d.localId) })));
    return { backends, devices: devices.map((d) => ({ ...d, lease: this.leaseOf(d.localId) })) };
  }

  /** What the backends say and which devices they offer, as the next report would (for the start banner). */
  async describe(): Promise<InventorySnapshot> {
    const backends = await Promise.all(this.providers.map((p) => p.status()));
    const lists = await Promise.all(this.providers.map(async (p, i) => (backends[i]!.available ? p.discover() : [])));
    return { backends, devices: lists.flat().map((d) => ({ ...d, lease: null })) };
  }

  /** What the devices' pages hold, summed over the backends that can tell; undefined if none can. */
  pageMemory(): PageMemory | undefined {
    const read = this.providers.map((p) => p.pageMemory?.()).filter((m): m is PageMemory => m !== undefined);
    return read.length ? sumPageMemory(read) : undefined;
  }

  capturesGivenUp(): number {
    return this.providers.reduce((n, p) => n + (p.capturesGivenUp?.() ?? 0), 0);
  }

  /** The backend for one of this host's devices. */
  device(localId: string): DeviceBackend | undefined {
    return (this.owners.get(localId) ?? this.providers.find((p) => p.device(localId)))?.device(localId);
  }

  onChange(listener: () => void): () => void {
    const offs = this.providers.map((p) => p.onChange(listener));
    return () => {
      for (const off of offs) off();
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.providers.map((p) => p.close()));
  }
}
