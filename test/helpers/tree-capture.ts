// Saves the trees a browser suite reads, for the offline identity evaluation
// (test/field/identity): with SIMFLEET_CAPTURE_TREES=<dir>, each named reading is written as a tree
// simfleet reads back (`simfleet inspect` takes it), and the suite's screen groups as labels.json.
// Without the variable nothing is written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeSnapshot } from '../../workers/devices/backend.js';

const dir = process.env.SIMFLEET_CAPTURE_TREES;

const fileOf = (name: string) => `${name.replace(/[^\w-]+/g, '-')}.json`;

export function captureTree(set: string, name: string, tree: TreeSnapshot): void {
  if (!dir) return;
  mkdirSync(join(dir, set), { recursive: true });
  writeFileSync(join(dir, set, fileOf(name)), `${JSON.stringify({ nodes: tree.nodes, screen: tree.screen, skippedInvisible: tree.skippedInvisible })}\n`);
}

/** `same`: pairs of names that are one screen; every other named reading is a screen of its own. `app` of each name. */
export function captureLabels(
  set: string,
  names: string[],
  same: [string, string][],
  appOf: (name: string) => string,
  notes: Record<string, string> = {},
): void {
  if (!dir) return;
  const group = new Map(names.map((n) => [n, n]));
  for (const [a, b] of same) {
    const ga = group.get(a)!;
    const gb = group.get(b)!;
    for (const [k, v] of group) if (v === gb) group.set(k, ga);
  }
  const groups: Record<string, { platform: string; app: string; files: string[]; note: string }> = {};
  for (const n of names) {
    const g = group.get(n)!;
    groups[g] ??= { platform: 'web', app: appOf(n), files: [], note: notes[g] ?? '' };
    groups[g].files.push(`${set}/${fileOf(n)}`);
  }
  writeFileSync(join(dir, `labels-${set}.json`), `${JSON.stringify({ groups }, null, 1)}\n`);
}
