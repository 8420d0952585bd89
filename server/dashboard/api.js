// The dashboard's only way to the gateway: REST with the bearer token, and WebSockets that each
// open with a fresh single-use ticket (browsers cannot set headers on an upgrade, and a token in a
// URL ends up in logs). The token lives in sessionStorage: gone with the tab, never in localStorage.

const KEY = 'simfleet.token';
export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, code, message, hint = '') {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
  /** One line for a person: the code, what went wrong and what to do. */
  get text() {
    return `${this.code}: ${this.message}${this.hint ? ` — ${this.hint}` : ''}`;
  }
}

let unauthorized = () => {};
/** Called when the gateway refuses the stored token (revoked, or never valid). */
export function onUnauthorized(fn) {
  unauthorized = fn;
}

/**
 * A REST call. `opts.token` tries a token that is not stored yet (the login form); a 401 for the
 * stored token goes to onUnauthorized as well as to the caller.
 */
export async function call(method, path, opts = {}) {
  const secret = opts.token ?? token.get();
  const headers = { accept: 'application/json' };
  if (secret) headers.authorization = `Bearer ${secret}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `the gateway cannot be reached (${err.message})`, 'is it running?');
  }
  const text = await res.text();
  let data = text;
  if (text && res.headers.get('content-type')?.includes('json')) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (res.ok) return data;
  const e = data?.error || {};
  const err = new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? (res.statusText || 'request failed'), e.hint ?? '');
  if (res.status === 401 && opts.token === undefined) unauthorized(err);
  throw err;
}

export const path = (strings, ...values) => strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ''), '');

/**
 * A WebSocket that reopens itself until closed: a fresh ticket per attempt, `?since=` the last seq
 * seen when `resumable`, growing pauses between attempts. `onStatus(state, detail)` gets
 * connecting | live | reconnecting | ended. A close with 1000 means the session ended when `final`.
 */
export function stream(route, { params = {}, resumable = false, final = false, onMessage, onStatus = () => {} }) {
  let ws = null;
  let since = null;
  let stopped = false;
  let timer = null;
  let pause = 500;
  let opened = false;

  async function open() {
    timer = null;
    if (stopped) return;
    onStatus(opened ? 'reconnecting' : 'connecting');
    let ticket;
    try {
      ({ ticket } = await call('POST', '/v1/tickets'));
    } catch (err) {
      if (err.status === 401) return stop(); // onUnauthorized has taken over
      onStatus('reconnecting', err.text);
      return later();
    }
    if (stopped) return;
    const query = new URLSearchParams({ ...params, ticket });
    if (resumable && since !== null) query.set('since', String(since));
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${location.host}${route}?${query}`);
    ws = socket;
    socket.binaryType = 'blob';
    socket.onopen = () => {
      opened = true;
      pause = 500;
      onStatus('live');
    };
    socket.onmessage = (m) => {
      if (typeof m.data !== 'string') return onMessage(m.data);
      const event = JSON.parse(m.data);
      if (resumable && typeof event.seq === 'number') since = event.seq;
      onMessage(event);
    };
    socket.onclose = (c) => {
      if (ws !== socket || stopped) return;
      ws = null;
      if (final && c.code === 1000) return onStatus('ended', c.reason);
      onStatus('reconnecting', c.reason || `closed (${c.code})`);
      later();
    };
  }
  function later() {
    if (stopped || timer) return;
    timer = setTimeout(open, pause);
    pause = Math.min(pause * 2, 10_000);
  }
  function stop() {
    stopped = true;
    clearTimeout(timer);
    ws?.close(1000);
    ws = null;
  }
  open();
  return {
    close: stop,
    /** Start over without `since` (after a gap that nothing filled). */
    restart() {
      since = null;
      const old = ws;
      ws = null;
      old?.close(1000);
      later();
    },
  };
}
