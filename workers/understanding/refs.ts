// Targets and refs. A ref (@N) names an element of one outline, and is honoured only while the
// screen is the one that numbered it with that element still in that place: on any other screen it
// is refused with STALE_REF naming the screen shown now, never tapped. Rows (#N), ids and labels are
// looked up on the screen as it is; none of them is ever guessed: nothing is NO_MATCH, two things
// are AMBIGUOUS.
import { DeviceError, type Rect } from '../devices/backend.js';
import type { Element } from './elements.js';
import { inside } from './geometry.js';
import { editDistance, normaliseLabel } from './names.js';
import type { ScreenReading } from './screen.js';
import { describeSelector, selectAll, type Selector } from './select.js';
import { ellipsize } from '../text/clip.js';

export type Target =
  | { kind: 'ref'; n: number }
  | { kind: 'row'; n: number; list: 1 | 2 }
  | { kind: 'id'; id: string }
  | { kind: 'label'; label: string; role?: string; index?: number }
  | { kind: 'point'; x: number; y: number }
  | { kind: 'select'; select: Selector };

/** A reading with the identity it was given, as served to one session. */
export interface Numbered {
  reading: ScreenReading;
  screen: { id: string; name: string | null };
}

export function parseTarget(raw: string, role?: string, index?: number): Target {
  const s = raw.trim();
  let m: RegExpMatchArray | null;
  if ((m = s.match(/^@(\d{1,4})$/))) return { kind: 'ref', n: Number(m[1]) };
  if ((m = s.match(/^#(\d{1,4})(@2)?$/))) return { kind: 'row', n: Number(m[1]), list: m[2] ? 2 : 1 };
  if ((m = s.match(/^#(\S+)$/))) return { kind: 'id', id: m[1]! };
  if ((m = s.match(/^(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)$/))) return { kind: 'point', x: Number(m[1]), y: Number(m[2]) };
  if (!s) throw new DeviceError('VALIDATION_FAILED', 'the target is empty', 'give @N, #N, #id, a label, or x,y in points');
  return { kind: 'label', label: s.replace(/^"(.*)"$/, '$1'), ...(role ? { role } : {}), ...(index !== undefined ? { index } : {}) };
}

export interface Found {
  index: number;
  how: 'ref' | 'row' | 'id' | 'label' | 'fuzzy' | 'point' | 'ocr';
}

/** Finds the one element `target` names on `current`; `numbered` is the session's last outline. */
export function locate(target: Target, current: Numbered, numbered: Numbered | undefined): Found {
  const els = current.reading.elements;
  const shown = (i: number) => current.reading.refs[i] !== null;
  switch (target.kind) {
    case 'ref': {
      if (!numbered) throw stale(`@${target.n} names an element of an outline, and this session has read none`, current);
      const was = numbered.reading.refs.indexOf(target.n);
      if (was < 0)
        throw new DeviceError(
          'NO_MATCH',
          `the outline of screen ${numbered.screen.id} has no @${target.n} (it numbered @1..@${Math.max(0, ...numbered.reading.refs.map((r) => r ?? 0))})`,
          'use a ref from the last outline',
        );
      if (numbered.screen.id !== current.screen.id)
        throw stale(`@${target.n} was numbered on screen ${describe(numbered)}, and the screen is now ${describe(current)}`, current);
      const now = current.reading.refs.indexOf(target.n);
      if (now < 0 || !sameElement(numbered.reading.elements[was]!, els[now]!)) {
        throw stale(
          `screen ${describe(current)} has changed since it was numbered: @${target.n} was ${say(numbered.reading.elements[was]!)}, and is now ${now < 0 ? 'gone' : say(els[now]!)}`,
          current,
        );
      }
      return { index: now, how: 'ref' };
    }
    case 'row': {
      const list = current.reading.lists.find((l) => l.rank === target.list);
      const name = `#${target.n}${target.list === 2 ? '@2' : ''}`;
      if (!list)
        throw new DeviceError(
          'NO_MATCH',
          `screen ${describe(current)} has no ${target.list === 1 ? 'list' : 'second list'}, so no row ${name}`,
          'read the screen; rows are numbered only on screens with a list',
        );
      const index = list.rows[target.n - 1];
      if (index === undefined)
        throw new DeviceError(
          'NO_MATCH',
          `the list has ${list.rows.length} rows loaded, so no ${name}`,
          'scroll to load more rows, then read the screen again',
          { rows: list.rows.length },
        );
      if (!shown(index))
        throw new DeviceError('NO_MATCH', `row ${name} (${say(els[index]!)}) is not on the screen: it is ${where(els[index]!)}`, 'scroll it into view first');
      return { index, how: 'row' };
    }
    case 'id':
      return one(
        els.map((_, i) => i).filter((i) => els[i]!.id === target.id),
        `#${target.id}`,
        current,
        'id',
      );
    case 'label': {
      const want = normaliseLabel(target.label).toLowerCase();
      const what = JSON.stringify(target.label) + (target.role ? ` (${target.role})` : '');
      const ofRole = (i: number) => !target.role || els[i]!.role === target.role;
      const matches = els.map((_, i) => i).filter((i) => normaliseLabel(els[i]!.label).toLowerCase() === want && ofRole(i));
      if (matches.length && target.index !== undefined) return pixelsSay(nth(matches, target.index, what, current), els);
      if (matches.length) return pixelsSay(one(matches, what, current, 'label'), els);
      return fuzzy(want, what, current, ofRole);
    }
    case 'select':
      return selected(target.select, current);
    case 'point': {
      const p = { x: target.x, y: target.y, width: 0, height: 0 };
      const under = els.map((_, i) => i).filter((i) => els[i]!.visible && inside(p, els[i]!.visible!, 0));
      if (!under.length)
        throw new DeviceError(
          'NO_MATCH',
          `no element lies at ${target.x},${target.y} on screen ${describe(current)}`,
          'a tap by point needs no element; to name one, read the screen for its tap point',
        );
      // The smallest is the one drawn there (a switch inside its row).
      under.sort((a, b) => els[a]!.visible!.width * els[a]!.visible!.height - els[b]!.visible!.width * els[b]!.visible!.height);
      return { index: under[0]!, how: 'point' };
    }
  }
}

/** A Maestro selector: the first element in its order among those on the screen; several are no ambiguity. */
function selected(sel: Selector, current: Numbered): Found {
  const els = current.reading.elements;
  const onScreen = selectAll(sel, { elements: els, shown: (i) => current.reading.refs[i] !== null });
  if (onScreen.length) return pixelsSay({ index: onScreen[0]!, how: sel.text === undefined && sel.id !== undefined ? 'id' : 'label' }, els);
  const offScreen = selectAll(sel, { elements: els, shown: () => true });
  if (offScreen.length)
    throw new DeviceError(
      'NO_MATCH',
      `${describeSelector(sel)} matches ${say(els[offScreen[0]!]!)}, which is not on the screen: it is ${where(els[offScreen[0]!]!)}`,
      'scroll it into view first',
    );
  throw new DeviceError('NO_MATCH', `nothing on screen ${describe(current)} matches ${describeSelector(sel)}`, 'read the screen for the labels and ids it has');
}

/** A match on words read from pixels says so: the resolution rests on text recognition, not the tree. */
function pixelsSay(found: Found, els: Element[]): Found {
  return els[found.index]!.fromPixels ? { ...found, how: 'ocr' } : found;
}

/** With an index: the one at that place among the visible matches, in reading order. */
function nth(matches: number[], index: number, what: string, current: Numbered): Found {
  const visible = matches.filter((i) => current.reading.refs[i] !== null);
  const at = visible[index];
  if (at === undefined)
    throw new DeviceError(
      'NO_MATCH',
      `${what} matches ${visible.length} element${visible.length === 1 ? '' : 's'} on screen ${describe(current)}, so there is none at index ${index}`,
      'index counts from 0 in reading order',
      { matches: visible.length },
    );
  return { index: at, how: 'label' };
}

function one(matches: number[], what: string, current: Numbered, how: Found['how']): Found {
  const els = current.reading.elements;
  const visible = matches.filter((i) => current.reading.refs[i] !== null);
  if (visible.length === 1) return { index: visible[0]!, how };
  if (visible.length > 1) {
    const candidates = visible.map((i) => ({ ref: current.reading.refs[i], role: els[i]!.role, label: els[i]!.label, tap: els[i]!.tap }));
    throw new DeviceError(
      'AMBIGUOUS',
      `${what} matches ${visible.length} elements on screen ${describe(current)}: ${visible.map((i) => `@${current.reading.refs[i]} ${say(els[i]!)}`).join(', ')}`,
      'name one by its ref (@N), or add a role',
      { candidates },
    );
  }
  if (matches.length) {
    const hidden = els[matches[0]!]!;
    const cover = hidden.flags.includes('covered') ? coverOf(hidden, current) : null;
    if (cover)
      throw new DeviceError('NO_MATCH', `${what} is on the screen but covered by ${cover.say}: a tap there would land on it`, cover.hint, {
        near: [],
        coveredBy: cover.by,
      });
    throw new DeviceError('NO_MATCH', `${what} is on the page but not on the screen: it is ${where(hidden)}`, 'scroll it into view first', {
      near: [],
    });
  }
  const near = nearLabels(
    what.replace(/^"|"(?: \(.*\))?$/g, ''),
    els.filter((_, i) => current.reading.refs[i] !== null),
  );
  // A modal layer hides what is behind it from the tree (the web makes it inert): say it is there.
  const modal = current.reading.regions.modal;
  const layer = modal ? layerName(modal) : null;
  throw new DeviceError(
    'NO_MATCH',
    `nothing on screen ${describe(current)} matches ${what}${near.length ? `; close: ${near.map((n) => JSON.stringify(n)).join(', ')}` : ''}${layer ? `; ${layer} is open over the screen` : ''}`,
    layer ? `close or finish ${layer} first if ${what} is behind it; else read the screen for the labels it has` : 'read the screen for the labels it has',
    { near, ...(modal ? { modal: { role: modal.role, label: modal.label } } : {}) },
  );
}

function stale(message: string, current: Numbered): DeviceError {
  return new DeviceError('STALE_REF', message, 'read the screen again (GET /v1/sessions/{id}/screen) and use a ref from that outline', {
    current: { id: current.screen.id, name: current.screen.name },
  });
}

function sameElement(a: Element, b: Element): boolean {
  return a.role === b.role && a.label === b.label && a.id === b.id;
}

const describe = (n: Numbered) => `${n.screen.id}${n.screen.name ? ` ${JSON.stringify(n.screen.name)}` : ''}`;
const say = (e: Element) => `${e.role} ${JSON.stringify(ellipsize(e.label, 40))}`;
const where = (e: Element) => (e.flags.includes('covered') ? 'covered' : e.frame.y < 0 ? 'above the screen' : 'below the screen');

/** A modal layer as a refusal names it: its role and label, or "a dialog". */
const layerName = (m: { role: string; label: string }) => (m.label ? `${m.role} ${JSON.stringify(ellipsize(m.label, 40))}` : `a ${m.role}`);

/**
 * What a tap on a covered element would land on, named so the asker can move it: the dialog it is
 * behind, the bar it lies under, or else the smallest element on screen over its middle (the banner,
 * the sheet, the overlay drawn after it). Null when the screen shows nothing there to name.
 */
function coverOf(e: Element, current: Numbered): { say: string; hint: string; by: { ref: number | null; role: string; label: string } } | null {
  const { regions, elements: els, refs } = current.reading;
  if (regions.modal) {
    const m = regions.modal;
    const name = layerName(m);
    return { say: `${name} drawn over the screen`, hint: `close or finish ${name} first`, by: { ref: null, role: m.role, label: m.label } };
  }
  const mid = { x: e.frame.x + e.frame.width / 2, y: e.frame.y + e.frame.height / 2 };
  for (const [band, bar] of [
    ['top', regions.top],
    ['bottom', regions.bottom],
  ] as const)
    if (bar && mid.y >= bar.y0 && mid.y <= bar.y1)
      return { say: `the ${band} bar`, hint: `scroll it out from under the ${band} bar first`, by: { ref: null, role: `${band} bar`, label: '' } };
  let best: number | null = null;
  els.forEach((c, i) => {
    const v = c.visible;
    // Drawn after it (later in the tree): its containers come before it and do not cover it.
    if (refs[i] === null || !v || c.node <= e.node) return;
    if (mid.x < v.x || mid.x > v.x + v.width || mid.y < v.y || mid.y > v.y + v.height) return;
    if (best === null || v.width * v.height < els[best]!.visible!.width * els[best]!.visible!.height) best = i;
  });
  if (best !== null) {
    const c = els[best]!;
    const named = `@${refs[best]} ${say(c)}`;
    return { say: named, hint: `dismiss or move ${named} first, then tap again`, by: { ref: refs[best]!, role: c.role, label: c.label } };
  }
  // A layer the outline has no line for (a banner's box) is over it: name the nearest line drawn after it.
  const near = nearestDrawnAfter(e, mid, current);
  if (near === null) return null;
  const c = els[near]!;
  const named = `@${refs[near]} ${say(c)}`;
  return {
    say: `something drawn over it (nearest on top: ${named})`,
    hint: `dismiss or move what is drawn over it (near ${named}) first, then tap again`,
    by: { ref: refs[near]!, role: c.role, label: c.label },
  };
}

function nearestDrawnAfter(e: Element, mid: { x: number; y: number }, current: Numbered): number | null {
  const { elements: els, refs } = current.reading;
  const gap = (v: Rect) => Math.hypot(Math.max(v.x - mid.x, 0, mid.x - v.x - v.width), Math.max(v.y - mid.y, 0, mid.y - v.y - v.height));
  let best: number | null = null;
  els.forEach((c, i) => {
    if (refs[i] === null || !c.visible || c.node <= e.node) return;
    if (best === null || gap(c.visible) < gap(els[best]!.visible!)) best = i;
  });
  return best;
}

/**
 * Up to three visible labels nearest the wanted words, nearest first: containing them or contained
 * in them, or a few typos away as a whole or word for word ("Notifcation settings" is near
 * "Notifications"). Only names to show the asker; nothing is ever acted on from this list.
 */
function nearLabels(want: string, els: Element[]): string[] {
  const w = normaliseLabel(want).toLowerCase();
  if (!w) return [];
  const wantWords = w.split(/\s+/).filter((x) => x.length >= 3);
  const score = (l: string): number => {
    if (l.includes(w) || (w.includes(l) && l.length >= 3)) return 1;
    let best = similarity(w, l);
    for (const word of l.split(/[\s,/-]+/)) {
      if (word.length < 3) continue;
      if (w.includes(word)) best = Math.max(best, 0.9);
      for (const ww of wantWords) best = Math.max(best, similarity(ww, word));
    }
    return best;
  };
  const scored = els
    .filter((e) => e.label)
    .map((e) => ({ label: e.label, score: score(e.label.toLowerCase()) }))
    .filter((x) => x.score >= NEAR_MIN)
    .sort((a, b) => b.score - a.score);
  return [...new Set(scored.map((s) => s.label))].slice(0, 3);
}

/** How alike two words are, 0–1, by edit distance (a swap counting one). */
const similarity = (a: string, b: string) => Math.max(0, 1 - editDistance(a, b) / Math.max(a.length, b.length));
/** A label this alike is worth naming as near. */
const NEAR_MIN = 0.7;

/** A fuzzy match must score at least this (1 = exact)... */
const FUZZY_MIN = 0.75;
/** ...and beat the next candidate by this much, or the two are too close to choose between. */
const FUZZY_MARGIN = 0.1;

/**
 * No exact label: the words as a prefix of a label or of one of its words, inside it, a typo
 * (edit distance, a swap counting one), or an icon's id ("trash" for #icon-trash). One clear winner
 * is taken; two close ones are AMBIGUOUS; none is NO_MATCH with the nearest names. Never a guess
 * below FUZZY_MIN.
 */
function fuzzy(want: string, what: string, current: Numbered, ofRole: (i: number) => boolean): Found {
  const els = current.reading.elements;
  const scored = els
    // Words read from pixels are matched only exactly: a near match on a reading that may itself be
    // off by a letter is a guess on a guess ("Back" must never become a lone "B").
    .map((e, i) => ({ i, score: current.reading.refs[i] !== null && ofRole(i) && !e.fromPixels ? closeness(want, e.label.toLowerCase(), e.id) : 0 }))
    .filter((s) => s.score >= FUZZY_MIN)
    .sort((a, b) => b.score - a.score);
  if (!scored.length) return one([], what, current, 'fuzzy');
  const close = scored.filter((s) => scored[0]!.score - s.score < FUZZY_MARGIN);
  if (close.length > 1) {
    const candidates = close.map((s) => ({
      ref: current.reading.refs[s.i],
      role: els[s.i]!.role,
      label: els[s.i]!.label,
      tap: els[s.i]!.tap,
      score: Math.round(s.score * 100) / 100,
    }));
    throw new DeviceError(
      'AMBIGUOUS',
      `${what} is close to ${close.length} elements on screen ${describe(current)}: ${close.map((s) => `@${current.reading.refs[s.i]} ${say(els[s.i]!)}`).join(', ')}`,
      'name one by its ref (@N) or its full label',
      { candidates },
    );
  }
  return { index: scored[0]!.i, how: 'fuzzy' };
}

function closeness(want: string, label: string, id: string | null): number {
  if (!want) return 0;
  let best = 0;
  if (label) {
    if (label.startsWith(want)) best = Math.max(best, 0.9);
    else if (want.length >= 2 && label.split(/[\s,/-]+/).some((w) => w.startsWith(want))) best = Math.max(best, 0.85);
    else if (want.length >= 3 && label.includes(want)) best = Math.max(best, 0.8);
    const d = editDistance(want, label);
    if (d <= Math.max(1, Math.floor(label.length / 4))) best = Math.max(best, 1 - d / Math.max(label.length, want.length));
  }
  // An icon nobody labelled may still carry its name in its id.
  if (
    id &&
    want.length >= 3 &&
    id
      .toLowerCase()
      .split(/[-_.:]+/)
      .includes(want)
  )
    best = Math.max(best, 0.8);
  return best;
}
