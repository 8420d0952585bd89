// A promise's answer if it comes within a time, else LATE. The promise itself goes on (whoever
// holds it still gets its answer), and the timer is cleared either way: a wait of a minute per
// action must not leave a minute-long timer behind each one.
import { type Cancel, type Clock, systemClock } from './clock.js';

export const LATE = Symbol('late');

export async function within<T>(promise: Promise<T>, ms: number, clock: Clock = systemClock): Promise<T | typeof LATE> {
  // No limit means none: Node fires a timer of Infinity (or past 2^31 - 1 ms) after 1 ms.
  if (ms > 2 ** 31 - 1) return promise;
  let cancel: Cancel | undefined;
  try {
    return await Promise.race([promise, new Promise<typeof LATE>((resolve) => (cancel = clock.timeout(() => resolve(LATE), ms)))]);
  } finally {
    cancel?.();
  }
}
