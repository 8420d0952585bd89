// The farm page: hosts with their devices, the queue's depth and the sessions this token may see,
// each ready one with a small live thumbnail. One farm stream (watchFarm) keeps it current: a
// snapshot first, then each thing's new state; a resumed stream sends only what changed.
import { stream } from './api.js';
import { clock, h, part, showError, streamLabel, template } from './dom.js';
import { liveScreen } from './live.js';

const THUMB = { fps: '2', scale: '0.2' };
// A gap should be followed by a fresh snapshot; if none comes, start over without `since`.
const GAP_GRACE_MS = 2000;
// How long after its last sign of strain placement keeps new sessions off a host (STRAIN_MEMORY_MS
// on the gateway): the badge shows for as long, and the page redraws when it ends.
const STRAIN_MS = 5 * 60_000;

export function farmPage(main, status) {
  const view = template('farm');
  main.replaceChildren(view);
  const hosts = new Map();
  const devices = new Map();
  const sessions = new Map();
  const quarantined = new Set();
  const thumbs = new Map(); // session id → { img, live }
  let queue = null;
  let gapTimer = null;
  let strainTimer = null;
  let drawn = false;

  const farm = stream('/v1/events', {
    resumable: true,
    onMessage: apply,
    onStatus(state, detail) {
      status(`farm ${streamLabel(state, detail)}`);
      showError(view, state === 'reconnecting' ? `The farm stream dropped; reconnecting${detail ? ` (${detail})` : ''}.` : '');
    },
  });

  function apply(e) {
    switch (e.type) {
      case 'snapshot':
        clearTimeout(gapTimer);
        hosts.clear();
        devices.clear();
        sessions.clear();
        for (const x of e.hosts) hosts.set(x.id, x);
        for (const x of e.devices) devices.set(x.id, x);
        for (const x of e.sessions) sessions.set(x.id, x);
        queue = e.queue;
        break;
      case 'host':
        hosts.set(e.host.id, e.host);
        break;
      case 'device':
        devices.set(e.device.id, e.device);
        break;
      case 'quarantine':
        devices.set(e.device.id, e.device);
        if (e.quarantined) quarantined.add(e.device.id);
        else quarantined.delete(e.device.id);
        break;
      case 'session':
        if (e.session.state === 'ended') sessions.delete(e.session.id);
        else sessions.set(e.session.id, e.session);
        break;
      case 'queue':
        queue = e.queue;
        break;
      case 'gap':
        gapTimer = setTimeout(() => farm.restart(), GAP_GRACE_MS);
        break;
    }
    if (!drawn) {
      drawn = true;
      requestAnimationFrame(draw);
    }
  }

  function draw() {
    drawn = false;
    part(view, 'queue').textContent = queue
      ? `queue: ${queue.depth} waiting (interactive ${queue.byPriority.interactive}, ci ${queue.byPriority.ci}, background ${queue.byPriority.background})`
      : 'queue: –';
    drawSessions();
    drawHosts();
  }

  function drawSessions() {
    const list = [...sessions.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (const [id, t] of thumbs) {
      if (sessions.get(id)?.state !== 'ready') {
        t.live.close();
        thumbs.delete(id);
      }
    }
    const items = list.map((s) => {
      let thumb = thumbs.get(s.id);
      if (!thumb && s.state === 'ready') {
        const img = h('img', { class: 'thumb', alt: `${s.id}, live`, 'data-seq': '0', 'data-frames': '0' });
        thumb = { img, live: liveScreen(img, s.id, THUMB) };
        thumbs.set(s.id, thumb);
      }
      const where = s.device ? `${s.device.name} (${s.device.id})` : s.queue ? `queued, position ${s.queue.position}` : 'no device yet';
      return h(
        'li',
        { 'data-session-id': s.id, 'data-state': s.state },
        h('a', { href: `#/sessions/${s.id}` }, thumb?.img ?? h('span', { class: 'thumb empty' }, s.state)),
        h('div', {}, h('a', { href: `#/sessions/${s.id}` }, s.id), h('br'), badge(s.state), ` ${s.team} · ${s.priority} · ${where}`),
        s.expiresAt ? h('div', { class: 'muted' }, `expires ${clock(s.expiresAt)}`) : null,
      );
    });
    part(view, 'sessions').replaceChildren(...(items.length ? items : [h('li', { class: 'muted' }, 'no sessions you may see')]));
  }

  function drawHosts() {
    const byHost = new Map([...hosts.keys()].map((id) => [id, []]));
    for (const d of devices.values()) {
      if (!byHost.has(d.hostId)) byHost.set(d.hostId, []);
      byHost.get(d.hostId).push(d);
    }
    // No event marks a strain window's end: redraw when the first one ends.
    const ends = [...hosts.values()].map(strainedUntil).filter((t) => t !== null);
    clearTimeout(strainTimer);
    if (ends.length) strainTimer = setTimeout(draw, Math.min(...ends) - Date.now() + 50);
    const sections = [...byHost].sort(([a], [b]) => a.localeCompare(b)).map(([id, list]) => hostSection(id, hosts.get(id), list));
    part(view, 'hosts').replaceChildren(...(sections.length ? sections : [h('p', { class: 'muted' }, 'no hosts yet')]));
  }

  /** Until when an online host shows strain (ms since the epoch), or null. */
  function strainedUntil(host) {
    const until = host?.strainedAt && host.state === 'online' ? Date.parse(host.strainedAt) + STRAIN_MS : 0;
    return until > Date.now() ? until : null;
  }

  function hostSection(id, host, list) {
    const missing = (host?.backends ?? []).filter((b) => !b.available);
    const strained = strainedUntil(host);
    return h(
      'section',
      { class: 'host', 'data-host-id': id, 'data-state': host?.state ?? 'unknown' },
      h(
        'h3',
        {},
        host?.name ?? id,
        ' ',
        badge(host?.state ?? 'unknown'),
        strained
          ? h(
              'span',
              {
                class: 'badge strained',
                'data-badge': 'strained',
                title: `slow or overdue screen reads at ${clock(host.strainedAt)}: new sessions go to other hosts until ${clock(new Date(strained).toISOString())} while one has a device that fits`,
              },
              'strained',
            )
          : null,
        h('span', { class: 'muted' }, host ? ` ${host.id} · ${host.os}/${host.arch} · v${host.version}` : ''),
      ),
      missing.map((b) => h('p', { class: 'muted' }, `${b.backend} unavailable${b.hint ? `: ${b.hint}` : ''}`)),
      h('table', {}, h('tbody', {}, list.sort((a, b) => a.id.localeCompare(b.id)).map(deviceRow))),
    );
  }

  function deviceRow(d) {
    const isQuarantined = quarantined.has(d.id) || d.state === 'broken';
    return h(
      'tr',
      { 'data-device-id': d.id, 'data-state': d.state, class: isQuarantined ? 'bad' : null },
      h('td', {}, d.name, h('br'), h('span', { class: 'muted' }, d.id)),
      h('td', {}, d.model, h('br'), h('span', { class: 'muted' }, `${d.platform} · ${d.backend} · ${d.os}`)),
      h('td', {}, badge(d.state), isQuarantined ? h('span', { class: 'badge broken' }, 'quarantined') : null),
      h('td', { class: 'muted' }, d.stateReason ?? ''),
    );
  }

  return () => {
    farm.close();
    clearTimeout(gapTimer);
    clearTimeout(strainTimer);
    for (const t of thumbs.values()) t.live.close();
  };
}

function badge(state) {
  return h('span', { class: `badge ${state}`, 'data-badge': state }, state);
}
