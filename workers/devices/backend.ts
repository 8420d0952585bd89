// The platform boundary, host side. A BackendProvider tells the worker which devices a backend
// (web, android, ios, fake) offers on this host; a DeviceBackend drives one of them. Everything
// above this file is platform-blind.
import type { components } from '../../openapi/generated/types.js';

export type BackendStatus = components['schemas']['BackendStatus'];
export type DeviceReport = Omit<components['schemas']['WorkerDevice'], 'lease'>;
export type AppTarget = components['schemas']['AppTarget'];

export interface DeviceBackend {
  readonly localId: string;
  /** A clean state with the session's app opened (or the backend's default when app is null). */
  prepare(app: AppTarget | null, signal: AbortSignal): Promise<void>;
  /** Back to a clean state between sessions: nothing of the previous session may remain. */
  reset(signal: AbortSignal): Promise<void>;
}

export interface BackendProvider {
  readonly backend: BackendStatus['backend'];
  /** Whether this host can run the backend at all; when not, `hint` says how to fix it. */
  status(): Promise<BackendStatus>;
  /** The devices this backend offers on this host right now. */
  discover(): Promise<DeviceReport[]>;
  device(localId: string): DeviceBackend | undefined;
  /** Called whenever discover() would answer differently; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A failure with a contract error code, answered to the gateway as such. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  constructor(
    readonly code: components['schemas']['ErrorCode'],
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}
