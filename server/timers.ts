// The gateway's own timers: the reaper's passes, the pings that keep a watched session alive, and
// the throttle on recording a session's activity.
// Deadlines themselves are the database's: its now() is the one clock every gateway of a farm
// shares. Tests give the gateway virtual timers (test/helpers/virtual-clock.ts) to run a pass or a
// ping at an exact moment, and move a session's timestamps back to move time for the database.

/** Cancels a timer; calling it after the timer fired does nothing. */
export type Cancel = () => void;

export interface Timers {
  /** Milliseconds since the epoch, as Date.now(): for throttles, never for deadlines. */
  wall(): number;
  /** Calls `fn` once, `ms` from now. The timer never keeps the process alive on its own. */
  timeout(fn: () => void, ms: number): Cancel;
}

export const systemTimers: Timers = {
  wall: () => Date.now(),
  timeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return () => clearTimeout(t);
  },
};

/** Calls `fn` every `ms` until cancelled. */
export function every(timers: Timers, ms: number, fn: () => void): Cancel {
  let cancel: Cancel = () => undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    cancel = timers.timeout(tick, ms);
    fn();
  };
  cancel = timers.timeout(tick, ms);
  return () => {
    stopped = true;
    cancel();
  };
}
