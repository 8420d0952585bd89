// Unfolds a flow into one flat list of steps and the blocks over it: runFlow is expanded in place
// (its steps keep the lines of the file they were written in); a condition (`when`), a `repeat`
// with `while` and a `retry` become blocks the runner walks on the device; a plain `repeat: times`
// is unrolled, because a flat list is what simfleet shows and runs most simply.
import { posix } from 'node:path';
import { translate } from './commands.js';
import { type Condition, readCondition } from './condition.js';
import { scopeEnv } from './env.js';
import { readEnv, readHeader } from './header.js';
import { Options, scalarText } from './options.js';
import { parseFlow, toCommands } from './parse.js';
import type { Command, CommandContext, MaestroProblem, Step, StepBlock, YNode } from './types.js';

export const MAX_STEPS = 200;
/** A repeat of at most this many times is unrolled; more, or one with a while, becomes a block. */
export const MAX_TIMES = 50;
export const MAX_REPEAT = 1000;
/** Orchestra's MAX_RETRIES_ALLOWED: more is cut to this, as Maestro does. */
export const MAX_RETRIES = 3;

/** The plan being built, shared by every level of nesting. */
export interface Build {
  read: (path: string) => string;
  caller: Record<string, string>;
  appId: string | null;
  steps: Step[];
  blocks: StepBlock[];
  problems: MaestroProblem[];
  notes: MaestroProblem[];
  /** every file runFlow (or retry) read, in the order first read */
  included: string[];
  /** set once the plan passed MAX_STEPS: the rest is still checked, but no longer unrolled */
  full: boolean;
}

/** Where commands are being expanded: their file, variables, and what enclosing blocks impose. */
export interface Scope {
  file: string;
  env: Record<string, string>;
  optional: boolean;
  note: string | undefined;
  /** the files being included, outermost first, to refuse a runFlow cycle */
  chain: string[];
}

export function contextFor(build: Build, file: string, line: number, command: string, env: Record<string, string>): CommandContext {
  const at = (message: string, option?: string, where?: number): MaestroProblem => ({
    file,
    line: where ?? line,
    command,
    ...(option !== undefined ? { option } : {}),
    message,
  });
  return {
    file,
    line,
    command,
    env,
    appId: build.appId,
    report: (message, option, where) => build.problems.push(at(message, option, where)),
    note: (message, option, where) => build.notes.push(at(message, option, where)),
  };
}

export function expand(commands: Command[], scope: Scope, build: Build): void {
  for (const cmd of commands) {
    const before = build.problems.length;
    const ctx = contextFor(build, scope.file, cmd.line, cmd.name, scope.env);
    const opts = cmd.arg?.kind === 'map' ? new Options(cmd.arg, ctx) : null;
    const label = opts?.str('label');
    if (label !== undefined && label.length > 500) opts?.refuse('label', 'a label is at most 500 characters');
    const inner: Scope = {
      ...scope,
      optional: scope.optional || opts?.bool('optional') === true,
      note: label !== undefined && label.length <= 500 ? label : scope.note,
    };
    if (cmd.name === 'runFlow') runFlow(cmd, ctx, opts, inner, build);
    else if (cmd.name === 'repeat') repeat(ctx, opts, inner, build);
    else if (cmd.name === 'retry') retry(cmd, ctx, opts, inner, build);
    else {
      // a command with a problem adds no steps, so the list shows only what would run as written
      const steps = translate(cmd, ctx, opts, inner);
      add(build.problems.length > before ? [] : steps, ctx, build);
    }
  }
}

function add(steps: Step[], ctx: CommandContext, build: Build): void {
  if (build.full) return;
  if (build.steps.length + steps.length > MAX_STEPS) {
    build.full = true;
    ctx.report(`the plan grows past ${MAX_STEPS} steps here, more than simfleet runs in one go; split the flow`);
    return;
  }
  build.steps.push(...steps);
}

/** Where the plan stood before a block's commands were expanded. */
interface Mark {
  steps: number;
  blocks: number;
}
const markOf = (build: Build): Mark => ({ steps: build.steps.length, blocks: build.blocks.length });

/** Drops what was added since the mark (a block that can never run). */
function undo(build: Build, mark: Mark): void {
  build.steps.length = Math.min(build.steps.length, mark.steps);
  build.blocks.length = mark.blocks;
}

/** Makes the steps added since the mark one block; nothing when they are none. */
function block(build: Build, mark: Mark, ctx: CommandContext, fields: Omit<StepBlock, 'first' | 'last' | 'source'>): void {
  if (build.steps.length <= mark.steps || build.full) return;
  build.blocks.push({ first: mark.steps, last: build.steps.length - 1, ...fields, source: { file: ctx.file, line: ctx.line, command: ctx.command } });
}

/** The commands of a runFlow or retry: a file (with env) or inline commands; expanded in place. */
function body(opts: Options, ctx: CommandContext, scope: Scope, build: Build, name: string): void {
  const envNode = opts.raw('env');
  const given = envNode ? readEnv(envNode, ctx, 'env') : {};
  const file = opts.str('file');
  const commands = opts.raw('commands');
  opts.finish();
  if (opts.has('file') === opts.has('commands')) {
    ctx.report(`${name} takes either file or commands`);
    return;
  }
  if (file !== undefined) include(file, ctx, scope, given, build);
  if (commands) {
    const nested = toCommands(commands, (line, command, message) => build.problems.push({ file: scope.file, line, command: command || name, message }));
    expand(nested, { ...scope, env: { ...scope.env, ...given } }, build);
  }
}

function runFlow(cmd: Command, ctx: CommandContext, opts: Options | null, scope: Scope, build: Build): void {
  if (cmd.arg === null || cmd.arg.kind === 'seq') {
    ctx.report('runFlow takes a file, or a map with file or commands (and env, when)');
    return;
  }
  if (!opts) {
    const file = scalarText(cmd.arg, ctx);
    if (file !== undefined) include(file, ctx, scope, {}, build);
    return;
  }
  const whenNode = opts.raw('when');
  const when = whenNode ? readCondition(whenNode, ctx, 'when') : ({ kind: 'always' } as const);
  const mark = markOf(build);
  body(opts, ctx, scope, build, 'runFlow');
  conditional(when, build, mark, ctx);
}

/** A block under `when`: dropped when it can never run, a block the runner checks, or plain steps. */
function conditional(when: Condition | undefined, build: Build, mark: Mark, ctx: CommandContext): void {
  if (when?.kind === 'never') undo(build, mark);
  else if (when?.kind === 'checked') block(build, mark, ctx, { when: when.condition });
}

function retry(cmd: Command, ctx: CommandContext, opts: Options | null, scope: Scope, build: Build): void {
  if (!opts || cmd.arg === null) {
    ctx.report('retry takes a map with maxRetries and commands (or file)');
    return;
  }
  const asked = opts.has('maxRetries') ? opts.int('maxRetries', 0, Number.MAX_SAFE_INTEGER) : 1;
  if (asked !== undefined && asked > MAX_RETRIES)
    ctx.note(`maxRetries ${asked} is cut to ${MAX_RETRIES}, as Maestro cuts it`, 'maxRetries', opts.line('maxRetries'));
  const mark = markOf(build);
  body(opts, ctx, scope, build, 'retry');
  if (asked !== undefined) block(build, mark, ctx, { retries: Math.min(asked, MAX_RETRIES) });
}

function include(ref: string, ctx: CommandContext, scope: Scope, given: Record<string, string>, build: Build): void {
  const file = ref.startsWith('/') ? posix.normalize(ref) : posix.join(posix.dirname(scope.file), ref);
  if (scope.chain.includes(file)) {
    ctx.report(`runFlow cycle: ${[...scope.chain, file].join(' → ')}`, 'file');
    return;
  }
  let text: string;
  try {
    text = build.read(file);
  } catch (err) {
    ctx.report(`cannot read ${file}: ${(err as Error).message}`, 'file');
    return;
  }
  if (!build.included.includes(file)) build.included.push(file);
  const parsed = parseFlow(text, (line, command, message) => build.problems.push({ file, line, command, message }));
  const headerEnv = { ...scope.env, ...build.caller, ...given };
  const header = readHeader(parsed.header, contextFor(build, file, parsed.header?.line ?? 0, 'header', headerEnv));
  const env = scopeEnv(scope.env, header.env, build.caller, given);
  const inner = { ...scope, file, env, chain: [...scope.chain, file] };
  hooks(header.onFlowStart, inner, build);
  expand(parsed.commands, inner, build);
  // a sub-flow's onFlowComplete runs after its commands; simfleet runs it only if they passed
  if (header.onFlowComplete) {
    contextFor(build, file, header.onFlowComplete.line, 'onFlowComplete', env).note(
      "a sub-flow's onFlowComplete runs only when the sub-flow passed (a main flow's runs always)",
    );
    hooks(header.onFlowComplete, inner, build);
  }
}

/** A header hook's commands (onFlowStart, onFlowComplete), expanded like any others. */
export function hooks(node: YNode | undefined, scope: Scope, build: Build): void {
  if (!node) return;
  const nested = toCommands(node, (line, command, message) => build.problems.push({ file: scope.file, line, command: command || 'header', message }));
  expand(nested, scope, build);
}

function repeat(ctx: CommandContext, opts: Options | null, scope: Scope, build: Build): void {
  if (!opts) {
    ctx.report('repeat takes a map with times or while, and commands');
    return;
  }
  const times = opts.has('times') ? opts.int('times', 1, MAX_REPEAT) : undefined;
  const whileNode = opts.raw('while');
  const cond = whileNode ? readCondition(whileNode, ctx, 'while') : undefined;
  const commands = opts.raw('commands');
  opts.finish();
  if (!opts.has('times') && !whileNode) ctx.report('repeat needs times or while');
  if (!commands) {
    ctx.report('repeat needs commands');
    return;
  }
  if (cond?.kind === 'always' && !opts.has('times'))
    ctx.report('this while always holds, so the repeat would never end; give times', 'while', opts.line('while'));
  const nested = toCommands(commands, (line, command, message) => build.problems.push({ file: scope.file, line, command: command || 'repeat', message }));
  const mark = markOf(build);
  expand(nested, scope, build);
  if (cond?.kind === 'never' || (times === undefined && cond?.kind !== 'checked')) return undo(build, mark);
  const checked = cond?.kind === 'checked' ? cond.condition : undefined;
  if (checked || build.blocks.length > mark.blocks || times! > MAX_TIMES)
    return block(build, mark, ctx, { repeat: { ...(times !== undefined ? { times } : {}), ...(checked ? { while: checked } : {}) } });
  // every round is the same steps with the same problems: expand once, then copy
  const round = build.steps.slice(mark.steps);
  for (let i = 1; i < times! && !build.full; i++) add(structuredClone(round), ctx, build);
}
