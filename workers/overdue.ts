// A call the worker cannot answer before the gateway stops waiting is answered HOST_OVERLOADED a
// little before it, not left to end as the gateway's bare COMMAND_TIMEOUT: the caller learns that
// the host is short of time rather than gone, and when to ask again. The gateway sends each call's
// budget (how long it waits); soaks held to 0.8 of a core saw screen reads need 9-14 s of its 10.
import { DeviceError } from './devices/backend.js';

/** Left of the gateway's budget when the worker answers for it: the answer still has its way to go. */
export const ANSWER_MARGIN_MS = 1000;
/** When a refused caller should ask again: soon, since what it asked for is under way. */
export const RETRY_AFTER_MS = 1000;

/** How long to wait on the caller's behalf: a margin short of its budget, and never past `ceilingMs`. */
export function giveUpAfter(budgetMs: number | undefined, ceilingMs: number): number {
  return Math.min(ceilingMs, budgetMs === undefined ? Infinity : Math.max(1, budgetMs - ANSWER_MARGIN_MS));
}

/** The refusal: what was not done in time, and what happens to the work still going. */
export function overloaded(notDone: string, waitedMs: number, whatGoesOn: string): DeviceError {
  return new DeviceError(
    'HOST_OVERLOADED',
    `${notDone} within ${waitedMs / 1000} s: this host is short of CPU for its devices, or the app is too busy to answer`,
    `ask again: ${whatGoesOn}; simfleet_worker_strain_total shows the host's strain`,
    { waitedMs, retryAfterMs: RETRY_AFTER_MS },
  );
}
