// `simfleet maestro check FILE...`: reads Maestro flows without a device, so that what simfleet
// would run (and every reason it would refuse) is known before a session is leased for it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { posix, sep } from 'node:path';
import { planWorkspace, type WorkspaceIo } from '../domain/flows/maestro/workspace.js';
import { parseMaestro, selectorText, type MaestroPlan, type MaestroProblem, type Step, type StepBlock } from '../domain/flows/maestro/index.js';

export const MAESTRO_USAGE =
  'usage: simfleet maestro check [--json] [-e KEY=VAL]... FILE|DIR...\n       simfleet maestro test|run FILE|DIR... --session ID [--junit FILE] [--include-tags a,b] [--exclude-tags c] [-e KEY=VAL]...\n';

export interface MaestroOutput {
  out(text: string): void;
  err(text: string): void;
}

const stdio: MaestroOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/**
 * positionals: the words after `maestro` (`check`, then the files). Returns the exit code: 0 when
 * every flow parsed without a problem, 1 when any has one, 2 for bad usage.
 */
export async function runMaestro(
  positionals: string[],
  opts: { json: boolean; env: Record<string, string>; tags?: { include?: string[]; exclude?: string[] } },
  io: MaestroOutput = stdio,
): Promise<number> {
  const [sub, ...paths] = positionals;
  if (sub !== 'check' || !paths.length) {
    io.err(MAESTRO_USAGE);
    return 2;
  }
  const chosen = flowPaths(paths, opts.tags ?? {});
  for (const p of chosen.problems) io.err(`${problemText(p)}\n`);
  const plans = chosen.files.map((file) => parseMaestro(file, readFlow, { env: opts.env }));
  io.out(opts.json ? `${JSON.stringify(plans, null, 2)}\n` : plans.map(planText).join('\n'));
  return chosen.problems.length || plans.some((p) => p.problems.length) ? 1 : 0;
}

export interface ChosenFlows {
  files: string[];
  /** the first `sequence` files are a workspace's executionOrder, run in order */
  sequence: number;
  continueOnFailure: boolean;
  problems: MaestroProblem[];
}

/** Files as given; a directory as the Maestro workspace it is (workspace.ts). */
export function flowPaths(paths: string[], tags: { include?: string[]; exclude?: string[] }): ChosenFlows {
  const out: ChosenFlows = { files: [], sequence: 0, continueOnFailure: true, problems: [] };
  for (const path of paths) {
    if (!isDirectory(path)) {
      out.files.push(path);
      continue;
    }
    const plan = planWorkspace(posix.normalize(path), FILES, tags);
    // one workspace's sequence leads only when it is the first path given
    if (!out.files.length) {
      out.sequence = plan.sequence;
      out.continueOnFailure = plan.continueOnFailure;
    }
    out.files.push(...plan.flows);
    out.problems.push(...plan.problems);
  }
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const FILES: WorkspaceIo = {
  list: (dir) => (readdirSync(dir, { recursive: true }) as string[]).map((f) => posix.join(dir, f.split(sep).join('/'))),
  read: (path) => readFileSync(path, 'utf8'),
};

export function readFlow(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message);
  }
}

export function planText(plan: MaestroPlan): string {
  const head = `${plan.file}: appId ${plan.appId ?? '(none)'}${plan.name ? `, "${plan.name}"` : ''}, ${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'}`;
  const width = String(plan.steps.length).length;
  const dir = posix.dirname(plan.file);
  const steps = plan.steps.map((s, i) => {
    const where = s.source ? `  (${posix.relative(dir, s.source.file)}:${s.source.line} ${s.source.command})` : '';
    return `  ${String(i + 1).padStart(width)}  ${describeStep(s).padEnd(36)}${where}`;
  });
  const blocks = plan.blocks.map(
    (b) =>
      `  steps ${b.first + 1}..${b.last + 1}: ${blockText(b)}${b.source ? `  (${posix.relative(dir, b.source.file)}:${b.source.line} ${b.source.command})` : ''}`,
  );
  const notes = plan.notes.map((n) => `note: ${problemText(n)}`);
  const verdict = plan.problems.length
    ? `${plan.problems.length} problem${plan.problems.length === 1 ? '' : 's'}; the flow cannot run as written:`
    : 'ok: no problems';
  return `${[head, ...steps, ...blocks, ...notes, verdict, ...plan.problems.map(problemText)].join('\n')}\n`;
}

/** `when visible text ~ "Skip"`, `repeat 3 times while ...`, `retry up to 2 times`, `always`. */
export function blockText(b: StepBlock): string {
  const cond = (c: NonNullable<StepBlock['when']>) =>
    [
      c.platform ? `platform ${c.platform}` : '',
      c.visible ? `visible ${selectorText(c.visible)}` : '',
      c.notVisible ? `not visible ${selectorText(c.notVisible)}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
  const parts: string[] = [];
  if (b.when) parts.push(`when ${cond(b.when)}`);
  if (b.repeat)
    parts.push(`repeat${b.repeat.times !== undefined ? ` at most ${b.repeat.times} times` : ''}${b.repeat.while ? ` while ${cond(b.repeat.while)}` : ''}`);
  if (b.retries !== undefined) parts.push(`retry up to ${b.retries} time${b.retries === 1 ? '' : 's'}`);
  if (b.always) parts.push('always, even after a failure');
  return parts.join('; ');
}

export function problemText(p: MaestroProblem): string {
  return `${p.file}${p.line ? `:${p.line}` : ''}: ${p.command ? `${p.command}: ` : ''}${p.message}`;
}

/** One readable line: `tap "Settings" [1]`, `scroll down to "Privacy"`, `assert visible "Inbox" within 7000ms`. */
export function describeStep(s: Step): string {
  const q = (t: string) => JSON.stringify(t);
  const parts: string[] = [s.action];
  if (s.that) parts.push(s.that);
  if (s.for) parts.push(s.for);
  if (s.direction) parts.push(s.direction);
  if (s.target) parts.push(s.action === 'swipe' && s.direction ? `from ${q(s.target)}` : q(s.target));
  if (s.select) parts.push(s.action === 'scroll' ? `to ${selectorText(s.select)}` : selectorText(s.select));
  if (s.index !== undefined) parts.push(`[${s.index}]`);
  if (s.to) parts.push(s.action === 'scroll' ? `to ${q(s.to)}` : `→ ${q(s.to)}`);
  if (s.text !== undefined) parts.push(q(s.text));
  if (s.count !== undefined) parts.push(`${s.count} characters`);
  if (s.key) parts.push(s.key);
  if (s.url) parts.push(s.url);
  if (s.name) parts.push(s.name);
  if (s.timeoutMs !== undefined) parts.push(`within ${s.timeoutMs}ms`);
  if (s.optional) parts.push('(optional)');
  if (s.note) parts.push(`— ${s.note}`);
  return parts.join(' ');
}
