// YAML text → the flow's header and its commands, each with the 1-based line it was written on.
// The failsafe schema keeps every scalar a string: `inputText: 0123` stays "0123", and `${TIMES}`
// may stand wherever a number or a boolean goes, since the commands convert after substitution.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import type { Command, YMap, YNode } from './types.js';

export interface ParsedFlow {
  header: YMap | null;
  commands: Command[];
}

type Report = (line: number, command: string, message: string) => void;

/** Parses one flow file; problems go to `report`, and whatever could be read is returned. */
export function parseFlow(text: string, report: Report): ParsedFlow {
  const lines = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter: lines, schema: 'failsafe', prettyErrors: false });
  const docs = Array.isArray(parsed) ? parsed : [];
  let failed = false;
  for (const doc of docs) {
    for (const err of doc.errors) {
      failed = true;
      report(
        err.linePos?.[0].line ?? lines.linePos(err.pos[0]).line,
        '',
        `YAML syntax error: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
      );
    }
  }
  if (failed) return { header: null, commands: [] };
  let trees: (YNode | null)[];
  try {
    const budget = { nodes: 0 };
    trees = docs.map((doc) => (doc.contents ? toTree(doc.contents, doc, lines, budget) : null));
  } catch (err) {
    report(0, '', `YAML cannot be read: ${(err as Error).message}`);
    return { header: null, commands: [] };
  }
  if (trees.length > 2) report(lineOf(docs[2]!, lines), '', 'a flow file holds a header and one list of commands; further `---` documents are not allowed');
  const [first, second] = trees;
  if (trees.length === 1 && first?.kind === 'seq') return { header: null, commands: toCommands(first, report) };
  if (first && first.kind !== 'map') report(first.line, '', 'the header (before `---`) must be a map such as `appId: com.example.app`');
  if (!second) {
    if (trees.length < 2) report(0, '', 'no commands: a flow is a header, then `---`, then a list of commands');
    return { header: first?.kind === 'map' ? first : null, commands: [] };
  }
  if (second.kind !== 'seq') {
    report(second.line, '', 'the commands (after `---`) must be a YAML list');
    return { header: first?.kind === 'map' ? first : null, commands: [] };
  }
  return { header: first?.kind === 'map' ? first : null, commands: toCommands(second, report) };
}

/** A list of commands (a flow's body, or `commands:` under runFlow/repeat) → commands with lines. */
export function toCommands(list: YNode, report: Report): Command[] {
  if (list.kind !== 'seq') {
    report(list.line, '', '`commands` must be a YAML list of commands');
    return [];
  }
  const out: Command[] = [];
  for (const item of list.items) {
    if (item.kind === 'scalar') {
      if (item.value.trim()) out.push({ name: item.value.trim(), line: item.line, arg: null });
      else report(item.line, '', 'an empty list item is not a command');
    } else if (item.kind === 'map' && item.entries.length === 1) {
      const [{ key, value, line }] = item.entries as [YMap['entries'][number]];
      // `- tapOn:` with nothing after it is the bare form, like `- tapOn`
      const bare = value.kind === 'scalar' && value.value === '';
      out.push({ name: key, line, arg: bare ? null : value });
    } else if (item.kind === 'map') {
      const keys = item.entries.map((e) => e.key).join(', ');
      report(item.line, item.entries[0]?.key ?? '', `a command is a map with one key, not ${item.entries.length} (${keys}); is an option's indentation off?`);
    } else {
      report(item.line, '', 'a command is a name (`- back`) or a one-key map (`- tapOn: "OK"`), not a list');
    }
  }
  return out;
}

function lineOf(doc: Document, lines: LineCounter): number {
  const start = doc.contents?.range?.[0] ?? doc.range?.[0] ?? 0;
  return lines.linePos(start).line;
}

/** Aliases are followed, so a recursive or exponential one (`&a [*a]`) must hit a limit, not the stack. */
const MAX_DEPTH = 64;
const MAX_NODES = 100_000;

function toTree(node: Node | null, doc: Document, lines: LineCounter, budget: { nodes: number }, depth = 0): YNode {
  if (depth > MAX_DEPTH) throw new Error(`nested deeper than ${MAX_DEPTH} levels`);
  if (++budget.nodes > MAX_NODES) throw new Error(`more than ${MAX_NODES} values once aliases are expanded`);
  if (isAlias(node)) return toTree(node.resolve(doc) ?? null, doc, lines, budget, depth + 1);
  const line = node?.range ? lines.linePos(node.range[0]).line : 0;
  if (isSeq(node)) return { kind: 'seq', line, items: node.items.map((n) => toTree(n as Node, doc, lines, budget, depth + 1)) };
  if (isMap(node)) {
    const entries = node.items.map((pair) => {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const keyLine = isScalar(pair.key) && pair.key.range ? lines.linePos(pair.key.range[0]).line : line;
      const value = pair.value === null ? { kind: 'scalar' as const, value: '', line: keyLine } : toTree(pair.value as Node, doc, lines, budget, depth + 1);
      return { key, value, line: keyLine };
    });
    return { kind: 'map', line, entries };
  }
  if (isScalar(node)) return { kind: 'scalar', line, value: node.value === null || node.value === undefined ? '' : String(node.value) };
  return { kind: 'scalar', line, value: '' };
}
