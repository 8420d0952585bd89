// A promise's answer if it comes within a time, else LATE. The promise itself goes on (whoever
// holds it still gets its answer), and the timer is cleared either way: a wait of a minute per
// action must not leave a minute-long timer behind each one.
export const LATE = Symbol('late');

export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof LATE> {
  // No limit means none: Node fires a timer of Infinity (or past 2^31 - 1 ms) after 1 ms.
  if (ms > 2 ** 31 - 1) return promise;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
