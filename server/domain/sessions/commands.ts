// What the session domain needs from the hosts: the boundary to the worker protocol, implemented
// by server/hub/command-bus.ts (locally, or through the gateway that holds the host's connection).
// Failures are ApiErrors with HOST_UNREACHABLE, COMMAND_TIMEOUT, STALE_LEASE, DEVICE_FAILED or NOT_FOUND.
import type { Schemas } from '../../../openapi/contract.js';

export interface PrepareCommand {
  localId: string;
  epoch: number;
  sessionId: string;
  app: Schemas['AppTarget'] | null;
  origins: Schemas['OriginRules'];
}

export interface ResetCommand {
  localId: string;
  epoch: number;
}

/** A question about a leased device, answered by its worker (perception calls). */
export interface CallCommand {
  localId: string;
  epoch: number;
  method: Schemas['GatewayCall']['method'];
  params: Record<string, unknown>;
  /** The session's team: the worker's memory is per team and app. */
  team?: string;
}

export interface DeviceCommands {
  prepare(hostId: string, cmd: PrepareCommand, timeoutMs: number): Promise<void>;
  reset(hostId: string, cmd: ResetCommand, timeoutMs: number): Promise<void>;
  call(hostId: string, cmd: CallCommand, timeoutMs: number): Promise<Record<string, unknown>>;
}

/** Failures that say nothing about the device itself, only that its host could not be asked. */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['HOST_UNREACHABLE', 'COMMAND_TIMEOUT']);

/** Failures that are the request's fault (its app URL): the session fails, the device is fine. */
export const REQUEST_FAULT_CODES: ReadonlySet<string> = new Set(['ORIGIN_NOT_ALLOWED', 'APP_UNREACHABLE', 'VALIDATION_FAILED']);
