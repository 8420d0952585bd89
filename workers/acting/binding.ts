// Identity evidence for a recorded step, and the check a replay makes before it touches anything.
// What a step acted on is kept as its id where it has one, else its role and label, with the
// structure around it: the region, the elements that contain it, its place among its region's
// elements of the same role, and its place among same-named elements in reading order. Everything
// here comes from the reading alone, so a screen answered from memory gives the same evidence as
// one read from the tree.
import type { components } from '../../openapi/generated/types.js';
import { inside } from '../understanding/geometry.js';
import { normaliseLabel } from '../understanding/names.js';
import type { ScreenReading } from '../understanding/screen.js';

export type Binding = components['schemas']['Binding'];

export function bindingOf(reading: ScreenReading, index: number): Binding {
  const els = reading.elements;
  const el = els[index]!;
  const region = reading.regionOf[index]!;
  const shown = (i: number) => reading.refs[i] !== null;
  const ancestry: string[] = [];
  // Containers, nearest (smallest) first: a cell around a switch, a list's row.
  const containers = els
    .map((e, i) => ({ e, i }))
    .filter(({ e, i }) => i !== index && e.frame.width * e.frame.height > el.frame.width * el.frame.height && inside(el.frame, e.frame, 1))
    .sort((a, b) => a.e.frame.width * a.e.frame.height - b.e.frame.width * b.e.frame.height);
  for (const { e } of containers.slice(0, 3)) ancestry.push(`${e.role} ${e.label}`.trim());
  const list = reading.lists.find((l) => l.rows.includes(index));
  if (list) ancestry.push(`list ${list.rank}`);
  ancestry.push(`region ${region}`);
  const sameRole = els.map((_, i) => i).filter((i) => shown(i) && reading.regionOf[i] === region && els[i]!.role === el.role);
  const sameName = els.map((_, i) => i).filter((i) => shown(i) && els[i]!.role === el.role && same(els[i]!.label, el.label));
  return {
    role: el.role,
    label: el.label,
    id: el.id,
    region,
    ancestry,
    sibling: Math.max(0, sameRole.indexOf(index)),
    viewportOrder: Math.max(0, sameName.indexOf(index)),
  };
}

export interface BindingCheck {
  /** The element the recorded evidence leads to on this screen, or null. */
  index: number | null;
  /** What it is, as evidence of the same shape. */
  observed: Binding | null;
  /** How many elements the recorded selector alone matched. */
  matchCount: number;
  /** Null when the element found is the one recorded; else why not. */
  mismatch: string | null;
}

/**
 * Finds the recorded element on this screen and says whether it is the same one. By id when one was
 * recorded; else by role and label, with the recorded place among same-named ones breaking ties;
 * and when nothing carries the label, by structure (the same role at the same place in the same
 * region), so a renamed control is reported as a mismatch showing both rather than as a miss.
 */
export function checkBinding(reading: ScreenReading, recorded: Binding): BindingCheck {
  const els = reading.elements;
  const shown = (i: number) => reading.refs[i] !== null;
  const all = els.map((_, i) => i).filter(shown);
  let candidates = recorded.id
    ? all.filter((i) => els[i]!.id === recorded.id)
    : all.filter((i) => els[i]!.role === recorded.role && same(els[i]!.label, recorded.label));
  const matchCount = candidates.length;
  if (!candidates.length) {
    candidates = all.filter((i) => reading.regionOf[i] === recorded.region && els[i]!.role === recorded.role);
    const at = candidates[recorded.sibling];
    if (at === undefined) return { index: null, observed: null, matchCount: 0, mismatch: null };
    const observed = bindingOf(reading, at);
    return {
      index: at,
      observed,
      matchCount: 0,
      mismatch: `nothing is ${say(recorded)}; in its place (${recorded.region}, ${ordinal(recorded.sibling)} ${recorded.role}) is ${say(observed)}`,
    };
  }
  const index = candidates.length === 1 ? candidates[0]! : (candidates[recorded.viewportOrder] ?? candidates[0]!);
  const observed = bindingOf(reading, index);
  return { index, observed, matchCount, mismatch: differs(recorded, observed, candidates.length) };
}

function differs(r: Binding, o: Binding, matches: number): string | null {
  if (r.id && o.id !== r.id) return `recorded #${r.id}, found #${o.id ?? '(no id)'}`;
  if (o.role !== r.role) return `recorded a ${r.role}, found a ${o.role}`;
  if (!same(o.label, r.label)) return `recorded ${say(r)}, found ${say(o)}`;
  if (o.region !== r.region) return `recorded in the ${r.region} region, found in the ${o.region} region`;
  // Several elements share the name: their places must agree too, or another one was picked.
  if (matches > 1 && (o.viewportOrder !== r.viewportOrder || o.sibling !== r.sibling))
    return `${matches} elements are ${say(r)}; the recorded one was ${ordinal(r.viewportOrder)} of them and ${ordinal(r.sibling)} ${r.role} of its region, the one found is ${ordinal(o.viewportOrder)} and ${ordinal(o.sibling)}`;
  return null;
}

const same = (a: string, b: string) => normaliseLabel(a).toLowerCase() === normaliseLabel(b).toLowerCase();
const say = (b: Binding) => `${b.role} ${JSON.stringify(b.label)}${b.id ? ` (#${b.id})` : ''}`;
const ordinal = (n: number) =>
  `${n + 1}${n % 10 === 0 && n % 100 !== 10 ? 'st' : n % 10 === 1 && n % 100 !== 11 ? 'nd' : n % 10 === 2 && n % 100 !== 12 ? 'rd' : 'th'}`;
