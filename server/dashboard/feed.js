// One readable line per session event (SessionEvent in openapi/simfleet.yaml).
import { clock } from './dom.js';

const pct = (f) => `${Math.round(f * 100)}%`;
const named = (screen) => (screen ? `"${screen.name ?? screen.id}"` : '?');

const DESCRIBE = {
  session: (e) => {
    const s = e.session;
    const device = s.device ? ` on ${s.device.name}` : '';
    const why = s.endReason ? ` (${s.endReason}${s.endDetail ? `: ${s.endDetail}` : ''})` : '';
    const queue = s.queue ? ` — position ${s.queue.position} in the queue` : '';
    return `session ${s.state}${device}${why}${queue}`;
  },
  expiring: (e) => `expiring (${e.reason}) at ${clock(e.deadline)}${e.reason === 'idle' ? ' — act or renew to keep it' : ' — renew to keep it'}`,
  'frame-change': (e) =>
    `frame ${e.frame.seq}: ${pct(e.fraction)} changed in ${e.regions.length} region${e.regions.length === 1 ? '' : 's'} since frame ${e.since}${e.coalesced > 1 ? ` (${e.coalesced} merged)` : ''}`,
  settled: (e) => `settled at frame ${e.frame.seq}`,
  motion: (e) => {
    const t = e.transition;
    const offset = t.offsetPt ? ` by ${Math.round(t.offsetPt.y)} pt` : '';
    return `motion ${t.kind}${offset} (frames ${e.from}→${e.to}, confidence ${t.confidence.toFixed(2)})`;
  },
  screen: (e) => `screen ${named(e.screen)} ${e.screen.known ? 'known' : 'new'}, ${e.elements} elements (from ${e.source})`,
  action: (e) =>
    `action ${e.action}${e.target ? ` "${e.target}"` : ''} → ${e.verdict}: ${e.reason} (${named(e.before)} → ${named(e.after)}${e.transition ? `, ${e.transition}` : ''}, ${Math.round(e.totalMs)} ms)`,
  escalation: (e) => `escalation ${e.reason} on ${e.screen} after ${e.action} (${e.costMs} ms)`,
  gap: (e) => `gap: ${e.missed} event${e.missed === 1 ? '' : 's'} no longer kept were missed (oldest kept: ${e.oldest})`,
};

/** `at  type  description`; an event type this page does not know is shown as its JSON. */
export function describe(event) {
  const text = DESCRIBE[event.type]?.(event) ?? `${event.type} ${JSON.stringify(event).slice(0, 200)}`;
  return `${clock(event.at)}  ${text}`;
}

/**
 * What an idle screen repeats: a ticking clock yields a change and a settle every second, which
 * filled the feed with "settled at frame N". A run of them is folded into one line, updated in place.
 */
const FOLDED = new Set(['frame-change', 'settled']);
export const folds = (event) => FOLDED.has(event.type);

/** The line for a run of `count` folded events begun at `since`: the newest, and how many. */
export function foldedLine(event, count, since) {
  return count > 1 ? `${describe(event)}  (×${count} since ${clock(since)}: changes and settles folded)` : describe(event);
}
