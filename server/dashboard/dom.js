// Small DOM helpers. Everything the API says is put on the page as text, never as HTML: labels,
// names and reasons come from apps on the devices and from other teams' requests.

/** An element with attributes (`class`, `data-*`, `href`, …) and text or element children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A fresh copy of one of index.html's page templates. */
export function template(name) {
  return document.getElementById(`t-${name}`).content.firstElementChild.cloneNode(true);
}

export const part = (root, name) => root.querySelector(`[data-${name}]`);

/** Shows an error line on a page (or hides it when `message` is empty). */
export function showError(root, message) {
  const el = root.querySelector('.error');
  el.textContent = message || '';
  el.hidden = !message;
}

export function clock(iso) {
  const d = iso ? new Date(iso) : new Date();
  return d.toTimeString().slice(0, 8);
}

/** Runs `fn` at most once per `ms`, at the end of a burst, and never twice at the same time. */
export function coalesce(fn, ms) {
  let timer = null;
  let running = false;
  let again = false;
  const run = async () => {
    timer = null;
    if (running) return void (again = true);
    running = true;
    try {
      await fn();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    if (!timer) timer = setTimeout(run, ms);
  };
  schedule.cancel = () => clearTimeout(timer);
  return schedule;
}

/** How a stream's state reads next to a heading. */
export function streamLabel(state, detail) {
  if (state === 'live') return '● live';
  if (state === 'ended') return 'ended';
  if (state === 'connecting') return 'connecting…';
  return `reconnecting…${detail ? ` (${detail})` : ''}`;
}
