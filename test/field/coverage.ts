// Outline coverage against the ground truth (truth.ts): for every interactive element Chromium says is
// on screen and uncovered, is there exactly one outline line whose tap point lands on it, with the
// right role, name and state? Two truth elements answered by one line are merged controls. Nothing
// here comes from simfleet's own reading but the outline under test.
import type { components } from '../../openapi/generated/types.js';
import type { Truth, TruthElement } from './truth.js';

type OutlineElement = components['schemas']['OutlineElement'];

/** simfleet roles that answer each of Chromium's. A bare click listener ('generic') is answered by any control role. */
const ROLES: Record<string, string[]> = {
  button: ['button', 'cell', 'tab', 'link', 'menuitem'],
  link: ['link', 'cell', 'button', 'tab'],
  textbox: ['textfield', 'securefield', 'searchfield', 'textarea'],
  searchbox: ['textfield', 'searchfield'],
  spinbutton: ['textfield', 'slider'],
  slider: ['slider'],
  checkbox: ['checkbox', 'switch'],
  switch: ['switch', 'checkbox'],
  radio: ['radio'],
  combobox: ['select', 'combobox', 'textfield'],
  listbox: ['list', 'select', 'listbox'],
  option: ['option', 'cell', 'button', 'radio'],
  menuitem: ['menuitem', 'button', 'cell', 'link'],
  menuitemcheckbox: ['menuitem', 'checkbox', 'switch'],
  menuitemradio: ['menuitem', 'radio'],
  tab: ['tab', 'button', 'link'],
  treeitem: ['cell', 'button', 'treeitem'],
  Date: ['textfield', 'date'],
  DateTime: ['textfield', 'date'],
  InputTime: ['textfield', 'time'],
  ColorWell: ['button', 'colorwell'],
  DisclosureTriangle: ['button', 'disclosure'],
  generic: ['button', 'cell', 'link', 'tab', 'menuitem', 'checkbox', 'switch', 'radio', 'option'],
};

export type Problem = 'absent' | 'role' | 'name' | 'state' | 'merged';

export interface TruthCheck {
  truth: { role: string; name: string; why: TruthElement['why']; states: TruthElement['states']; screen: TruthElement['screen'] };
  /** The outline line whose tap lands on it (the best of several), or null. */
  line: { ref: number | null; role: string; label: string; tap: { x: number; y: number } | null } | null;
  problems: Problem[];
}

export interface PageCoverage {
  truth: number;
  right: number;
  absent: number;
  roleWrong: number;
  nameWrong: number;
  stateWrong: number;
  merged: number;
  checks: TruthCheck[];
}

/** Compared as an agent reads words: whitespace collapsed, case and icon-font glyphs (private use) ignored. */
const norm = (s: string) =>
  s
    .replace(/[\uE000-\uF8FF\u{F0000}-\u{FFFFD}\u{100000}-\u{10FFFD}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** The outline's words match the truth's name: the same, or the outline's cut at 60 characters. */
function sameName(line: OutlineElement, t: TruthElement): boolean {
  const want = norm(t.name);
  const got = norm(line.label);
  if (got === want) return true;
  if (got.endsWith('…') && want.startsWith(got.slice(0, -1))) return true;
  // A label read from pixels cannot be held to the tree's words; an unnamed truth asks for nothing.
  if (!want) return true;
  // A control that names itself and shows a value (a select's chosen option) may give either.
  return norm(line.value ?? '') === want || norm(line.detail ?? '') === want;
}

function sameStates(line: OutlineElement, t: TruthElement): boolean {
  const s = line.states as Record<string, unknown>;
  const checked = t.states.checked ?? t.states.pressed;
  if (checked !== undefined && checked !== 'mixed' && Boolean(s.checked) !== (checked === 'true')) return false;
  if (t.states.selected !== undefined && ['tab', 'option'].includes(t.role) && Boolean(s.selected) !== t.states.selected) return false;
  if (t.states.expanded !== undefined && Boolean(s.expanded) !== t.states.expanded) return false;
  if (t.states.disabled !== undefined && Boolean(s.disabled) !== t.states.disabled) return false;
  if (['textbox', 'searchbox'].includes(t.role) && (t.states.value ?? '') !== (line.value ?? '')) return false;
  return true;
}

/** Shown enough to be touched: uncovered and at least partly on the screen. */
function onScreen(t: TruthElement, truth: Truth): boolean {
  const v = truth.viewport;
  const w = v.width * v.scale * v.zoom;
  const h = v.height * v.scale * v.zoom;
  return (
    !t.covered &&
    t.screen.width > 0 &&
    t.screen.height > 0 &&
    t.screen.x < w &&
    t.screen.y < h &&
    t.screen.x + t.screen.width > 0 &&
    t.screen.y + t.screen.height > 0
  );
}

export async function coverage(elements: OutlineElement[], truth: Truth): Promise<PageCoverage> {
  const wanted = truth.elements.filter((t) => onScreen(t, truth));
  // Where each outline line's tap lands, asked of the page.
  const landings = new Map<OutlineElement, TruthElement | undefined>();
  for (const line of elements) if (line.tap && line.ref !== null) landings.set(line, await truth.hits(line.tap.x, line.tap.y));
  const linesOf = (t: TruthElement) => [...landings].filter(([, hit]) => hit?.backendNodeId === t.backendNodeId).map(([line]) => line);
  const checks: TruthCheck[] = wanted.map((t) => {
    const lines = linesOf(t);
    // Of several lines landing on one control (a row and the text in it), the one of the right role counts.
    const line = lines.find((l) => ROLES[t.role]?.includes(l.role)) ?? lines[0] ?? null;
    const problems: Problem[] = [];
    if (!line) problems.push('absent');
    else {
      if (!ROLES[t.role]?.includes(line.role)) problems.push('role');
      if (!sameName(line, t)) problems.push('name');
      if (!sameStates(line, t)) problems.push('state');
    }
    return {
      truth: { role: t.role, name: t.name, why: t.why, states: t.states, screen: t.screen },
      line: line ? { ref: line.ref, role: line.role, label: line.label, tap: line.tap } : null,
      problems,
    };
  });
  // Merged: one line answering for two controls (its tap can land on one only; the other has no line of its own).
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i]!;
    if (!c.problems.includes('absent')) continue;
    const t = wanted[i]!;
    const over = [...landings.keys()].find((line) => {
      const f = line.frame;
      return line.ref !== null && inside(t.screen, f) && landings.get(line) !== undefined && landings.get(line)!.backendNodeId !== t.backendNodeId;
    });
    if (over && ROLES[t.role] && !['generic'].includes(t.role)) c.problems.push('merged');
  }
  const count = (p: Problem) => checks.filter((c) => c.problems.includes(p)).length;
  return {
    truth: checks.length,
    right: checks.filter((c) => c.problems.length === 0).length,
    absent: count('absent'),
    roleWrong: count('role'),
    nameWrong: count('name'),
    stateWrong: count('state'),
    merged: count('merged'),
    checks,
  };
}

/** Box `a` lies mostly inside box `b` (both in screen points). */
function inside(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 && w * h >= 0.8 * a.width * a.height;
}
