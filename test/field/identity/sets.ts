// The labelled sets identity is measured on: real dumps of real apps captured by other people,
// grouped by hand into screens. A group's files are one screen; groups of one app are different
// screens. AMBIGUOUS groups (judgement calls) are reported apart and counted in neither direction.
//
// The sets in the repository (test/fixtures/identity/, files whose licence allows copying) always
// load; the fuller sets under ../shared are read when that folder is there.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LabelledFile {
  set: string;
  /** The path the labels give, relative to the set's folder. */
  file: string;
  text: string;
  group: string;
  app: string;
  platform: string;
  ambiguous: boolean;
  /** The group's note says its captures differ by scroll position. */
  scroll: boolean;
}

export interface LabelledSet {
  name: string;
  files: LabelledFile[];
}

interface Labels {
  groups: Record<string, { platform: string; app: string; files: string[]; note?: string }>;
}

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '../../fixtures/identity');
export const SHARED = join(here, '../../../../shared');

/** A set laid out as labels.json plus the files it names; files absent from the folder are skipped. */
export function loadSet(name: string, dir: string): LabelledSet | undefined {
  const labelsPath = join(dir, 'labels.json');
  if (!existsSync(labelsPath)) return undefined;
  const labels = JSON.parse(readFileSync(labelsPath, 'utf8')) as Labels;
  const files: LabelledFile[] = [];
  for (const [group, g] of Object.entries(labels.groups)) {
    for (const file of g.files) {
      const path = join(dir, file);
      if (!existsSync(path)) continue;
      files.push({
        set: name,
        file,
        text: readFileSync(path, 'utf8'),
        group,
        app: g.app,
        platform: g.platform,
        ambiguous: /AMBIGUOUS/.test(g.note ?? ''),
        scroll: /scroll/i.test(g.note ?? ''),
      });
    }
  }
  return { name, files };
}

/** Every set there is here: the repository's own, and the shared ones when present. */
export function loadSets(): LabelledSet[] {
  const sets = [
    loadSet('fixtures/android-ios', join(FIXTURES, 'dumps')),
    loadSet('fixtures/web', join(FIXTURES, 'web')),
    loadSet('shared/corpus', join(SHARED, 'corpus')),
    loadSet('shared/corpus-ext', join(SHARED, 'corpus-ext')),
  ];
  return sets.filter((s): s is LabelledSet => s !== undefined && s.files.length > 0);
}
