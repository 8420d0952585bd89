// The platform boundary, host side: what each backend (web, android, ios, fake) tells the worker
// about the devices it can offer on this host. Everything above this file is platform-blind.
import type { components } from '../../openapi/generated/types.js';

export type BackendStatus = components['schemas']['BackendStatus'];
export type DeviceReport = components['schemas']['WorkerDevice'];

export interface BackendProvider {
  readonly backend: BackendStatus['backend'];
  /** Whether this host can run the backend at all; when not, `hint` says how to fix it. */
  status(): Promise<BackendStatus>;
  /** The devices this backend offers on this host right now. */
  discover(): Promise<DeviceReport[]>;
  /** Called whenever discover() would answer differently; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}
