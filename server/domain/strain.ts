// Signs that a host cannot keep up with its devices, as its worker's heartbeats count them since it
// started (WorkerStrain). A heartbeat whose count of slow reads, overdue reads or captures given up
// rose since the connection's last one marks the host strained, and placement on every gateway
// keeps new sessions off it for a while when another host has a device that fits. Reads cut short
// are not a sign: a screen full of drawn text can cut a read short on a healthy host.
import type { Schemas } from '../../openapi/contract.js';

export type Strain = Schemas['WorkerStrain'];

export const STRAIN_SIGNS = ['slowReads', 'readsOverdue', 'capturesGivenUp'] as const;

/** How long placement prefers other hosts after a host's last sign of strain. */
export const STRAIN_MEMORY_MS = 5 * 60_000;

/**
 * The signs that rose between two heartbeats of one connection, by name (empty: none). The first
 * heartbeat of a connection has nothing to compare with: counts since the worker started say
 * nothing of when.
 */
export function risenSigns(before: Strain | undefined, now: Strain | undefined): Partial<Record<(typeof STRAIN_SIGNS)[number], number>> {
  if (!before || !now) return {};
  const risen: Partial<Record<(typeof STRAIN_SIGNS)[number], number>> = {};
  for (const k of STRAIN_SIGNS) if (now[k] > before[k]) risen[k] = now[k] - before[k];
  return risen;
}
