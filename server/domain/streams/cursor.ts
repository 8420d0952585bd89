// A session stream's cursor: one integer that says how far a subscriber has read two ordered
// sources at once — the session's changes (its event_seq in Postgres) in the high bits and its
// device's events (numbered by the worker, per lease) in the low 32. Every event on a connection
// raises one of the two, so seq only increases; and a cursor from any connection, on any gateway,
// resumes exactly: changes after s, device events after d. A session has one lease once it is
// ready (it never goes back to the queue), so d never restarts under a subscriber.
const DEVICE_SPAN = 2 ** 32;
/** Session changes a cursor can count: 2^21 (a session changes state a handful of times). */
export const MAX_SESSION_SEQ = 2 ** 21 - 1;

export interface Cursor {
  /** The session's event_seq this far. */
  s: number;
  /** The device event this far (0: none yet). */
  d: number;
}

export function encodeCursor(c: Cursor): number {
  return Math.min(c.s, MAX_SESSION_SEQ) * DEVICE_SPAN + c.d;
}

export function decodeCursor(seq: number): Cursor {
  return { s: Math.floor(seq / DEVICE_SPAN), d: seq % DEVICE_SPAN };
}
