// The outline header's hints from the transition graph: how many ways out of a screen are known,
// and which verified ones worked before, named as the screen shows them now. A hint is only given
// for a target found on this very reading: a screen that only looks known (two screens sharing a
// fingerprint) must not be handed another screen's controls.
import { tapKey, type TransitionGraph } from '../memory/graph.js';
import { normaliseLabel } from './names.js';
import { quote, type OutlineHeader } from './outline.js';
import type { ScreenReading } from './screen.js';

/** Worked-before hints shown at most: the header stays one short line. */
const MAX_WORKED = 3;

export function exitHints(graph: TransitionGraph, screen: string, reading: ScreenReading): Pick<OutlineHeader, 'exits' | 'workedBefore'> {
  const exits = graph.exits(screen);
  if (!exits.length) return {};
  // Per action, how often it was verified (over every destination it had) and the one element on
  // this screen it means; an action that means none, or several, is not hinted.
  const worked = new Map<string, { index: number; verified: number }>();
  for (const e of exits) {
    if (e.verified === 0) continue;
    const have = worked.get(e.action);
    if (have) {
      have.verified += e.verified;
      continue;
    }
    const index = onlyShown(reading, e.action);
    if (index !== null) worked.set(e.action, { index, verified: e.verified });
  }
  const top = [...worked.values()].sort((a, b) => b.verified - a.verified).slice(0, MAX_WORKED);
  return {
    exits: new Set(exits.map((e) => `${e.action}\u0000${e.to}`)).size,
    workedBefore: top.map((w) => `tap ${nameOn(reading, w.index)} (${w.verified}x)`),
  };
}

/** The element a tap action means on this reading, when exactly one shown element is it. */
function onlyShown(reading: ScreenReading, action: string): number | null {
  let found: number | null = null;
  for (let i = 0; i < reading.elements.length; i++) {
    if (reading.refs[i] === null || tapKey(reading.elements[i]!) !== action) continue;
    if (found !== null) return null;
    found = i;
  }
  return found;
}

/**
 * The element as an agent would ask for it: its label as shown (quoted, `~` when read from pixels,
 * as in the outline), with its id beside it when another shown element has the same label; its id
 * when it has no label; its ref when it has neither (or only a number, which `#N` would take for a row).
 */
function nameOn(reading: ScreenReading, index: number): string {
  const el = reading.elements[index]!;
  const id = el.id && !/^\d+$/.test(el.id) ? `#${el.id}` : `@${reading.refs[index]}`;
  if (!el.label) return id;
  const label = el.fromPixels ? `~${quote(el.label)}` : quote(el.label);
  const key = normaliseLabel(el.label).toLowerCase();
  const shared = reading.elements.some((e, i) => i !== index && reading.refs[i] !== null && normaliseLabel(e.label).toLowerCase() === key);
  return shared ? `${label} ${id}` : label;
}
