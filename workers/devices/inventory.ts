// Everything this host offers, gathered from every backend: the body of a hello or devices message.
import type { BackendProvider, BackendStatus, DeviceReport } from './backend.js';

export interface InventorySnapshot {
  backends: BackendStatus[];
  devices: DeviceReport[];
}

export class Inventory {
  constructor(private readonly providers: readonly BackendProvider[]) {}

  async snapshot(): Promise<InventorySnapshot> {
    const backends = await Promise.all(this.providers.map((p) => p.status()));
    const lists = await Promise.all(this.providers.map((p, i) => (backends[i]!.available ? p.discover() : Promise.resolve([]))));
    return { backends, devices: lists.flat() };
  }

  onChange(listener: () => void): () => void {
    const offs = this.providers.map((p) => p.onChange(listener));
    return () => offs.forEach((off) => off());
  }

  async close(): Promise<void> {
    await Promise.all(this.providers.map((p) => p.close()));
  }
}
