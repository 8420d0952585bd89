// The session page: the live screen, the outline (refreshed when the screen settles or changes),
// the event feed (watchSession, resumed with `since`) and the app's screen graph.
import { ApiError, call, path, stream } from './api.js';
import { clock, coalesce, h, part, showError, streamLabel, template } from './dom.js';
import { describe, foldedLine, folds } from './feed.js';
import { appOf, drawGraph, loadGraph } from './graph.js';
import { liveScreen } from './live.js';

const FEED_CAP = 300;
// Memory is written behind (batched by the worker), and other sessions teach it too: an action's
// edge is often not there yet when its event arrives, so the graph is also read now and then.
const GRAPH_POLL_MS = 5000;

export function sessionPage(main, id, status) {
  const view = template('session');
  main.replaceChildren(view);
  part(view, 'title').textContent = id;
  let session = null;
  let live = null;
  let events = null;
  let app = null;
  let currentScreen = null;
  const seen = new Map(); // screen id → name, from this session's events and outlines
  let poll = null;
  let closed = false;
  const problems = new Map(); // where → message; the page shows all of them at once

  function problem(where, message) {
    if (message) problems.set(where, message);
    else problems.delete(where);
    showError(view, [...problems.values()].join(' · '));
  }

  function show(s) {
    session = s;
    const device = s.device ? `${s.device.name} (${s.device.id})` : 'no device yet';
    const until = s.state === 'ended' ? `ended ${clock(s.endedAt)}: ${s.endReason}` : s.expiresAt ? `expires ${clock(s.expiresAt)}` : '';
    part(view, 'meta').replaceChildren(
      h('span', { class: `badge ${s.state}`, 'data-badge': s.state }, s.state),
      ` ${s.team} · ${s.platform} · ${device} · ${until}`,
    );
    if (s.state === 'ready' && !live) {
      live = liveScreen(part(view, 'screen'), id, {}, (state, detail) => (part(view, 'screen-status').textContent = `screen ${streamLabel(state, detail)}`));
      outline();
      graph();
      poll = setInterval(graph, GRAPH_POLL_MS);
    }
    if (s.state === 'ended') {
      live?.close();
      clearInterval(poll);
      part(view, 'screen-status').textContent = 'the session has ended';
    }
  }

  const outline = coalesce(async () => {
    if (closed || session?.state !== 'ready') return;
    part(view, 'outline-status').textContent = 'reading…';
    try {
      const o = await call('GET', path`/v1/sessions/${id}/screen`);
      part(view, 'outline').textContent = o.text;
      part(view, 'outline-status').textContent = `${o.screen.name ?? o.screen.id} (${o.screen.known ? 'known' : 'new'}), read ${clock(o.read.at)}`;
      seen.set(o.screen.id, o.screen.name);
      if (currentScreen !== o.screen.id) {
        currentScreen = o.screen.id;
        graph();
      }
      problem('outline', '');
    } catch (err) {
      part(view, 'outline-status').textContent = '';
      problem('outline', `Outline: ${err.text ?? err.message}`);
    }
  }, 250);

  const graph = coalesce(async () => {
    if (closed || !session) return;
    try {
      app ??= await appOf(session);
      const list = part(view, 'graph');
      if (!app) {
        part(view, 'graph-status').textContent = 'nothing remembered of this app yet';
        return list.replaceChildren();
      }
      const g = await loadGraph(app);
      part(view, 'graph-status').textContent = `${app.app} · ${g.nodes.length} screens, ${g.edges.length} edges`;
      drawGraph(list, g, currentScreen, seen);
      problem('graph', '');
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) app = null; // forgotten meanwhile
      problem('graph', `Graph: ${err.text ?? err.message}`);
    }
  }, 1000);

  function onEvent(e) {
    const feed = part(view, 'feed');
    const top = feed.firstElementChild;
    if (folds(e) && top?.dataset.fold) {
      const count = Number(top.dataset.fold) + 1;
      Object.assign(top.dataset, { fold: String(count), type: e.type, seq: String(e.seq) });
      top.textContent = foldedLine(e, count, top.dataset.since);
    } else {
      const fold = folds(e) ? { 'data-fold': '1', 'data-since': e.at } : {};
      feed.prepend(h('li', { 'data-type': e.type, 'data-seq': e.seq, ...fold }, describe(e)));
    }
    while (feed.childElementCount > FEED_CAP) feed.lastElementChild.remove();
    if (e.type === 'session') show(e.session);
    if (e.type === 'settled' || e.type === 'screen') outline();
    const shown = e.type === 'screen' ? e.screen : e.type === 'action' ? e.after : null;
    if (e.type === 'action') seen.set(e.before.id, e.before.name);
    if (shown) seen.set(shown.id, shown.name);
    if (shown && shown.id !== currentScreen) currentScreen = shown.id;
    if (shown) graph();
  }

  call('GET', path`/v1/sessions/${id}`)
    .then((s) => {
      if (closed) return;
      show(s);
      events = stream(path`/v1/sessions/${id}/events`, {
        resumable: true,
        final: true,
        onMessage: onEvent,
        onStatus(state, detail) {
          const label = streamLabel(state, detail);
          part(view, 'feed-status').textContent = label;
          status(`events ${label}`);
          problem('events', state === 'reconnecting' ? `The event stream dropped; reconnecting${detail ? ` (${detail})` : ''}.` : '');
        },
      });
    })
    .catch((err) => {
      const text = err.status === 404 ? `No session ${id} that this token may see.` : (err.text ?? err.message);
      problem('session', text);
    });

  return () => {
    closed = true;
    clearInterval(poll);
    outline.cancel();
    graph.cancel();
    live?.close();
    events?.close();
  };
}
