// `simfleet inspect`: saved dumps read offline, for people debugging a dump and for evaluation. Each
// file gives its outline, fingerprint tokens and identity hash; --compare gives, for every pair, the
// similarity, whether a title veto applied and the same/different decision. Pure: the caller reads
// the files and prints.
import type { TreeSnapshot } from '../devices/backend.js';
import { type Comparison, compare, SAME_SCREEN } from './identity.js';
import { outlineJson, outlineText } from './outline.js';
import { readScreen, type Platform, type ScreenReading } from './screen.js';
import { DumpError, parseDump, type DumpFormat } from './sources/index.js';

export type InspectFormat = DumpFormat | 'simfleet-tree';
export const INSPECT_FORMATS: InspectFormat[] = ['uiautomator-xml', 'xcuitest-xml', 'idb-json', 'axe-json', 'simfleet-tree'];

export interface Inspected {
  file: string;
  format: InspectFormat;
  platform: Platform;
  notes: string[];
  reading: ScreenReading;
  outline: string;
}

export class InspectError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly hint: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export function inspect(file: string, text: string, opts: { format?: InspectFormat; density?: number } = {}): Inspected {
  let format: InspectFormat;
  let platform: Platform;
  let tree: TreeSnapshot;
  let notes: string[] = [];
  if (opts.format === 'simfleet-tree' || (opts.format === undefined && isSimfleetTree(text))) {
    tree = simfleetTree(file, text);
    format = 'simfleet-tree';
    platform = 'web';
  } else {
    try {
      const d = parseDump(text, { ...(opts.format ? { format: opts.format } : {}), ...(opts.density ? { density: opts.density } : {}) });
      ({ format, platform, notes } = d);
      tree = d.snapshot;
    } catch (err) {
      if (err instanceof DumpError) throw new InspectError(file, err.message, `${err.hint}; or a tree simfleet saved (JSON with nodes and screen)`);
      throw err;
    }
  }
  if (tree.nodes.length === 0) {
    throw new InspectError(
      file,
      'the dump holds no elements: an empty or cut-short dump is no screen to read or compare',
      'save it again with the app in front',
    );
  }
  const reading = readScreen(tree, platform);
  const outline = outlineText(reading, { device: `${platform} (${format})`, screenId: reading.fingerprint.hash, name: reading.title });
  return { file, format, platform, notes, reading, outline };
}

/** The text report for one file: outline, tokens, identity. */
export function inspectText(i: Inspected): string {
  const head = `== ${i.file} (${i.format}, ${i.platform}, ${i.reading.nodeCount} nodes)`;
  const notes = i.notes.map((n) => `note: ${n}`);
  const fp = i.reading.fingerprint;
  return [
    head,
    ...notes,
    i.outline.trimEnd(),
    `identity ${fp.hash}${fp.title ? ` title ${JSON.stringify(fp.title)}` : ''}`,
    `tokens (${fp.tokens.length}): ${fp.tokens.join(' ')}`,
    '',
  ].join('\n');
}

export function inspectJson(i: Inspected) {
  const fp = i.reading.fingerprint;
  return {
    file: i.file,
    format: i.format,
    platform: i.platform,
    notes: i.notes,
    identity: fp.hash,
    title: fp.title,
    tokens: fp.tokens,
    outline: i.outline,
    screen: outlineJson(i.reading, { device: `${i.platform} (${i.format})`, screenId: fp.hash, name: i.reading.title }),
  };
}

export interface Pair {
  a: string;
  b: string;
  similarity: number;
  titleVeto: boolean;
  same: boolean;
  /** What matched and what differed, family by family; the vetoes that applied; a title taken as data. */
  evidence: Comparison['evidence'];
}

/** Every pair of the inspected files, in the order given. */
export function comparePairs(files: Inspected[]): Pair[] {
  const pairs: Pair[] = [];
  for (let i = 0; i < files.length; i++) {
    for (let j = i + 1; j < files.length; j++) {
      const c = compare(files[i]!.reading.fingerprint, files[j]!.reading.fingerprint);
      pairs.push({ a: files[i]!.file, b: files[j]!.file, similarity: c.similarity, titleVeto: c.titleVeto, same: c.same, evidence: c.evidence });
    }
  }
  return pairs;
}

export function pairsText(pairs: Pair[]): string {
  if (!pairs.length) return ''; // fewer than two files could be read
  return `# same screen when the similarity is at least ${SAME_SCREEN} and nothing vetoes it\n${pairs.map((p) => `${p.same ? 'same     ' : 'different'} ${p.similarity.toFixed(3)}  ${p.a}  ${p.b}\n  ${evidenceText(p.evidence)}`).join('\n')}\n`;
}

/** One line: each family's shared/own counts and agreement, then the vetoes and a title taken as data. */
export function evidenceText(e: Comparison['evidence']): string {
  const families = Object.entries(e.families).map(([name, f]) => `${name} ${f.shared} of ${f.a}|${f.b} (${f.score.toFixed(2)})`);
  const vetoes = e.vetoes.map((v) => `veto: ${v}`);
  return [...families, ...vetoes, ...(e.titleSlot ? ['title is data (a slot)'] : [])].join('; ') || 'nothing in common';
}

function isSimfleetTree(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('{') && /"nodes"\s*:/.test(t) && /"screen"\s*:/.test(t);
}

function simfleetTree(file: string, text: string): TreeSnapshot {
  let v: Partial<TreeSnapshot>;
  try {
    v = JSON.parse(text) as Partial<TreeSnapshot>;
  } catch (err) {
    throw new InspectError(
      file,
      `expected a tree simfleet saved (JSON with nodes and screen), found malformed JSON: ${(err as Error).message}`,
      'the file may be cut short',
    );
  }
  const ok =
    Array.isArray(v.nodes) &&
    v.screen &&
    typeof v.screen.widthPt === 'number' &&
    v.nodes.every((n, i) => n && n.index === i && typeof n.role === 'string' && n.frame && typeof n.frame.x === 'number');
  if (!ok)
    throw new InspectError(
      file,
      'expected a tree simfleet saved: {nodes: [{index, parent, role, label, frame, …}], screen: {widthPt, heightPt}}',
      'save one from a device with the worker, or pass an Android or iOS dump',
    );
  return { nodes: v.nodes!, skippedInvisible: v.skippedInvisible ?? 0, screen: v.screen!, durationMs: 0 };
}
