// The time the gateway waits for a call's answer, as a deadline the call's own work can see. Once it
// has passed, the caller has been told COMMAND_TIMEOUT and may already be sending its next action:
// work that would touch the device again (another scroll, a correction, the next step of a run) is
// not begun. Carried in async context so that the layers in between need not pass it along.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Clock, systemClock } from '../clock.js';
import { DeviceError } from '../devices/backend.js';

const current = new AsyncLocalStorage<{ at: number; budgetMs: number; clock: Clock }>();

/** Runs `fn` with a deadline `budgetMs` from now on the clock; none when not given. */
export function withDeadline<T>(budgetMs: number | undefined, fn: () => Promise<T>, clock: Clock = systemClock): Promise<T> {
  return budgetMs === undefined ? fn() : current.run({ at: clock.now() + budgetMs, budgetMs, clock }, fn);
}

/** Milliseconds left before the caller stops waiting; Infinity when no one said. */
export function timeLeft(): number {
  const d = current.getStore();
  return d === undefined ? Infinity : d.at - d.clock.now();
}

/** The clock the caller's deadline is on (the system's when no one set a deadline): for timing work against it. */
export function deadlineClock(): Clock {
  return current.getStore()?.clock ?? systemClock;
}

/** Throws when the caller's time is up, saying what was not begun. */
export function checkDeadline(what: string): void {
  const d = current.getStore();
  if (d && d.clock.now() >= d.at) throw notBegun(what);
}

/**
 * Work refused because the caller's time is up. Its own class so that no layer in between takes it
 * for a failed step to triage and try again: it ends the whole call.
 */
export class DeadlinePassed extends DeviceError {}

/** The refusal for work not begun because the caller's time is up (the deadline in context, if any). */
export function notBegun(what: string): DeadlinePassed {
  const budgetMs = current.getStore()?.budgetMs;
  return new DeadlinePassed(
    'COMMAND_TIMEOUT',
    `the gateway stopped waiting for this call${budgetMs === undefined ? '' : ` after ${budgetMs} ms`}; ${what} was not begun`,
    'the device is free for the next call; retry with a longer timeoutMs or fewer steps if it keeps happening',
  );
}
