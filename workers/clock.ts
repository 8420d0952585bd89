// Time as the worker's timing logic sees it: a monotonic reading, the wall clock, and timers. The
// system clock is the default everywhere; tests pass a virtual one (test/helpers/virtual-clock.ts)
// and move it on by hand, so settling, quiet windows and deadlines are checked at exact instants
// instead of after sleeps that a loaded machine stretches.

/** Cancels a timer; calling it after the timer fired does nothing. */
export type Cancel = () => void;

export interface Clock {
  /** Monotonic milliseconds on performance.now()'s scale: frames' `receivedAt` is on it. */
  now(): number;
  /** Milliseconds since the epoch, as Date.now(). */
  wall(): number;
  /** Calls `fn` once, `ms` from now. The timer never keeps the process alive on its own. */
  timeout(fn: () => void, ms: number): Cancel;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  wall: () => Date.now(),
  timeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return () => clearTimeout(t);
  },
};

/** Resolves `ms` from now on the given clock. */
export function delay(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.timeout(resolve, ms));
}
