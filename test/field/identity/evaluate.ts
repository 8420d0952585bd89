// Pairwise identity over labelled sets: every same-screen pair (one group) and every
// different-screen pair (two groups of one app), judged by workers/understanding/identity.ts, in a
// confusion table per set and per half. The halves split the apps, not the files: the threshold's
// fit is judged on apps it was not fitted on.
import { createHash } from 'node:crypto';
import { compare, type Comparison } from '../../../workers/understanding/identity.js';
import { inspect, type Inspected } from '../../../workers/understanding/inspect.js';
import type { LabelledFile, LabelledSet } from './sets.js';

export type Half = 'fit' | 'held-out';

/** Apps whose name hashes even are the fit half; the rest are held out. */
export function halfOf(app: string): Half {
  return createHash('sha256').update(app).digest()[0]! % 2 === 0 ? 'fit' : 'held-out';
}

export interface JudgedPair {
  set: string;
  a: string;
  b: string;
  app: string;
  truth: 'same' | 'different' | 'ambiguous';
  half: Half;
  /** A same-screen pair of a group whose captures differ by scroll position. */
  scroll: boolean;
  /** Both groups' names (one when the truth is same). */
  groups: string;
  comparison: Comparison;
}

export interface Tally {
  same: { pairs: number; recalled: number };
  different: { pairs: number; separated: number };
  ambiguous: { pairs: number; judgedSame: number };
}

export interface Unreadable {
  set: string;
  file: string;
  error: string;
}

export function readAll(set: LabelledSet): { read: { f: LabelledFile; i: Inspected }[]; unreadable: Unreadable[] } {
  const read: { f: LabelledFile; i: Inspected }[] = [];
  const unreadable: Unreadable[] = [];
  for (const f of set.files) {
    try {
      read.push({ f, i: inspect(f.file, f.text) });
    } catch (err) {
      unreadable.push({ set: set.name, file: f.file, error: (err as Error).message });
    }
  }
  return { read, unreadable };
}

export function judgePairs(set: LabelledSet, read: { f: LabelledFile; i: Inspected }[]): JudgedPair[] {
  const out: JudgedPair[] = [];
  for (let x = 0; x < read.length; x++) {
    for (let y = x + 1; y < read.length; y++) {
      const a = read[x]!;
      const b = read[y]!;
      if (a.f.app !== b.f.app || a.f.platform !== b.f.platform) continue;
      const sameGroup = a.f.group === b.f.group;
      const truth = sameGroup ? (a.f.ambiguous ? 'ambiguous' : 'same') : a.f.ambiguous || b.f.ambiguous ? 'ambiguous' : 'different';
      if (truth === 'ambiguous' && !sameGroup) continue; // a judgement-call group against another: not counted
      out.push({
        set: set.name,
        a: a.f.file,
        b: b.f.file,
        app: a.f.app,
        truth,
        half: halfOf(a.f.app),
        scroll: sameGroup && a.f.scroll,
        groups: sameGroup ? a.f.group : `${a.f.group} / ${b.f.group}`,
        comparison: compare(a.i.reading.fingerprint, b.i.reading.fingerprint),
      });
    }
  }
  return out;
}

export function tally(pairs: JudgedPair[]): Tally {
  const t: Tally = { same: { pairs: 0, recalled: 0 }, different: { pairs: 0, separated: 0 }, ambiguous: { pairs: 0, judgedSame: 0 } };
  for (const p of pairs) {
    if (p.truth === 'same') {
      t.same.pairs++;
      if (p.comparison.same) t.same.recalled++;
    } else if (p.truth === 'different') {
      t.different.pairs++;
      if (!p.comparison.same) t.different.separated++;
    } else {
      t.ambiguous.pairs++;
      if (p.comparison.same) t.ambiguous.judgedSame++;
    }
  }
  return t;
}

const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}%`);

export function tallyRow(label: string, t: Tally): string {
  return `| ${label} | ${t.same.recalled}/${t.same.pairs} (${pct(t.same.recalled, t.same.pairs)}) | ${t.different.separated}/${t.different.pairs} (${pct(t.different.separated, t.different.pairs)}) | ${t.ambiguous.judgedSame}/${t.ambiguous.pairs} judged same |`;
}

/** The pairs judged wrong, the worst first: same pairs by lowest similarity, different pairs by highest. */
export function worst(pairs: JudgedPair[], n: number): JudgedPair[] {
  const wrong = pairs.filter((p) => (p.truth === 'same' && !p.comparison.same) || (p.truth === 'different' && p.comparison.same));
  const badness = (p: JudgedPair) => (p.truth === 'same' ? 1 - p.comparison.similarity : p.comparison.similarity);
  return wrong.sort((x, y) => badness(y) - badness(x)).slice(0, n);
}
