// The screen graph the farm remembers of a session's app (GET /v1/apps, /v1/apps/{id}/graph), as a
// list: each screen with the actions that lead away from it. Memory is keyed by the app the device
// shows (web: origin and path; the sample app as simfleet-sample-app/…), so the session's app is
// found among its team's apps by that prefix.
import { call, path } from './api.js';
import { h } from './dom.js';

export async function appOf(session) {
  const { apps } = await call('GET', '/v1/apps');
  const url = session.app?.url;
  const prefix = url ? new URL(url).origin : 'simfleet-sample-app';
  const mine = apps.filter((a) => a.team === session.team && a.platform === session.platform && a.app.startsWith(prefix));
  return mine.sort((a, b) => b.screens - a.screens)[0] ?? null;
}

export async function loadGraph(app) {
  return call('GET', path`/v1/apps/${app.id}/graph`);
}

/**
 * Nodes in the order remembered, then screens only an edge names yet (memory is written behind),
 * named from what this page has seen; the current screen marked; edges under the screen they leave.
 */
export function drawGraph(list, graph, currentId, seen) {
  const nodes = new Map(graph.nodes.map((n) => [n.id, { name: n.name, remembered: true }]));
  for (const e of graph.edges) {
    for (const id of [e.from, e.to]) if (!nodes.has(id)) nodes.set(id, { name: seen.get(id) ?? null, remembered: false });
  }
  const label = (id) => nodes.get(id)?.name ?? id;
  const items = [...nodes].map(([id, n]) => {
    const out = graph.edges.filter((e) => e.from === id);
    return h(
      'li',
      { 'data-node': id, class: id === currentId ? 'current' : null },
      h('strong', {}, n.name ?? '(untitled)'),
      h('span', { class: 'muted' }, ` ${id}${n.remembered ? '' : ' (not remembered yet)'}`),
      id === currentId ? h('span', { class: 'badge ready' }, 'on screen') : null,
      out.length
        ? h(
            'ul',
            {},
            out.map((e) =>
              h(
                'li',
                { 'data-edge': `${e.from}→${e.to}` },
                `${e.action} → ${label(e.to)}`,
                h('span', { class: 'muted' }, ` ×${e.count}, verified ${e.verified}`),
              ),
            ),
          )
        : null,
    );
  });
  list.replaceChildren(...(items.length ? items : [h('li', { class: 'muted' }, 'nothing remembered yet')]));
}
