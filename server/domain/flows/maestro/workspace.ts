// A Maestro workspace (a directory given to `maestro test`) → the flow files to run, as Maestro's
// WorkspaceExecutionPlanner chooses them: the directory's config.yaml `flows` globs (default `*`: the
// flows at its top level), `includeTags` / `excludeTags` (with the caller's) against each flow's
// header `tags`, and `executionOrder.flowsOrder` naming flows (by header name or file name) that run
// first, in that order, stopping at a failure unless `continueOnFailure`.
import { posix } from 'node:path';
import { parse } from 'yaml';
import { parseFlow } from './parse.js';
import type { MaestroProblem } from './types.js';

export interface WorkspacePlan {
  /** flows run in order, first to last: the sequence first, then the rest */
  flows: string[];
  /** how many of `flows` (from the start) are executionOrder's sequence */
  sequence: number;
  continueOnFailure: boolean;
  problems: MaestroProblem[];
}

export interface WorkspaceIo {
  /** every file under `dir`, at any depth, as paths joined to `dir` */
  list(dir: string): string[];
  read(path: string): string;
}

const FLOW = /\.ya?ml$/;
const CONFIG = /^config\.ya?ml$/;

export function planWorkspace(dir: string, io: WorkspaceIo, tags: { include?: string[]; exclude?: string[] } = {}): WorkspacePlan {
  const problems: MaestroProblem[] = [];
  const fail = (message: string, file = dir, line = 0): WorkspacePlan => ({
    flows: [],
    sequence: 0,
    continueOnFailure: true,
    problems: [...problems, { file, line, command: '', message }],
  });
  const files = io.list(dir).filter((f) => FLOW.test(f) && !CONFIG.test(posix.basename(f)));
  if (!files.length) return fail('the directory holds no flow files (.yaml or .yml)');
  const config = readConfig(dir, io, problems);
  const globs = config.flows ?? ['*'];
  const matchers = globs.map((g) => globRegex(posix.join(dir, g)));
  const matched = files.filter((f) => matchers.some((m) => m.test(f)));
  if (!matched.length)
    return fail(
      globs.length === 1 && globs[0] === '*'
        ? "the directory's top level holds no flows; list the sub-directories under flows: in config.yaml (as Maestro asks)"
        : `the flows globs (${globs.join(', ')}) match no flow file`,
    );
  const include = [...(tags.include ?? []), ...(config.includeTags ?? [])];
  const exclude = [...(tags.exclude ?? []), ...(config.excludeTags ?? [])];
  const headers = new Map(matched.map((f) => [f, headerOf(f, io)]));
  const chosen = matched.filter((f) => {
    const t = headers.get(f)!.tags;
    return (!include.length || t.some((x) => include.includes(x))) && !t.some((x) => exclude.includes(x));
  });
  if (!chosen.length) return fail(`no flow has the tags asked for (include: ${include.join(', ') || '-'}; exclude: ${exclude.join(', ') || '-'})`);
  const byName = new Map(chosen.map((f) => [headers.get(f)!.name ?? posix.basename(f).replace(FLOW, ''), f]));
  const order = config.executionOrder?.flowsOrder ?? [];
  const sequence: string[] = [];
  for (const name of order) {
    const f = byName.get(name);
    if (f) sequence.push(f);
    else
      problems.push({
        file: configPath(dir, io) ?? dir,
        line: 0,
        command: 'executionOrder',
        message: `flowsOrder names "${name}", which is no flow chosen to run`,
      });
  }
  return {
    flows: [...sequence, ...chosen.filter((f) => !sequence.includes(f))],
    sequence: sequence.length,
    continueOnFailure: config.executionOrder?.continueOnFailure !== false,
    problems,
  };
}

interface WorkspaceConfig {
  flows?: string[];
  includeTags?: string[];
  excludeTags?: string[];
  executionOrder?: { flowsOrder?: string[]; continueOnFailure?: boolean };
}

function configPath(dir: string, io: WorkspaceIo): string | undefined {
  return io.list(dir).find((f) => posix.dirname(f) === posix.normalize(dir) && CONFIG.test(posix.basename(f)));
}

function readConfig(dir: string, io: WorkspaceIo, problems: MaestroProblem[]): WorkspaceConfig {
  const file = configPath(dir, io);
  if (!file) return {};
  try {
    const raw = (parse(io.read(file)) ?? {}) as Record<string, unknown>;
    const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : undefined);
    const order = raw.executionOrder as { flowsOrder?: unknown; continueOnFailure?: unknown } | undefined;
    return {
      ...(strings(raw.flows) ? { flows: strings(raw.flows)! } : {}),
      ...(strings(raw.includeTags) ? { includeTags: strings(raw.includeTags)! } : {}),
      ...(strings(raw.excludeTags) ? { excludeTags: strings(raw.excludeTags)! } : {}),
      ...(order ? { executionOrder: { flowsOrder: strings(order.flowsOrder) ?? [], continueOnFailure: order.continueOnFailure !== false } } : {}),
    };
  } catch (err) {
    problems.push({ file, line: 0, command: '', message: `the workspace config cannot be read: ${(err as Error).message.split('\n')[0]}` });
    return {};
  }
}

function headerOf(file: string, io: WorkspaceIo): { name: string | null; tags: string[] } {
  const { header } = parseFlow(io.read(file), () => undefined);
  const entry = (key: string) => header?.entries.find((e) => e.key === key)?.value;
  const name = entry('name');
  const tags = entry('tags');
  return {
    name: name?.kind === 'scalar' ? name.value : null,
    tags: tags?.kind === 'seq' ? tags.items.flatMap((t) => (t.kind === 'scalar' ? [t.value] : [])) : tags?.kind === 'scalar' ? [tags.value] : [],
  };
}

/** A Java-style glob (`*` within a directory, `**` across them, `?`, `{a,b}`) as an anchored regular expression. */
export function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') out += '(?:';
    else if (c === '}') out += ')';
    else if (c === ',' && out.includes('(?:')) out += '|';
    else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
