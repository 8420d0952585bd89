// Unfolds a flow into one flat list: runFlow is expanded in place (its steps keep the lines of the
// file they were written in) and repeat is unrolled, because simfleet runs a plain list of steps.
import { posix } from 'node:path';
import { translate } from './commands.js';
import { scopeEnv } from './env.js';
import { readEnv, readHeader } from './header.js';
import { Options, scalarText } from './options.js';
import { parseFlow, toCommands } from './parse.js';
import type { Command, CommandContext, MaestroProblem, Step } from './types.js';

export const MAX_STEPS = 200;
export const MAX_TIMES = 50;

/** The plan being built, shared by every level of nesting. */
export interface Build {
  read: (path: string) => string;
  caller: Record<string, string>;
  appId: string | null;
  steps: Step[];
  problems: MaestroProblem[];
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
  return {
    file,
    line,
    command,
    env,
    appId: build.appId,
    report: (message, option, at) => build.problems.push({ file, line: at ?? line, command, ...(option !== undefined ? { option } : {}), message }),
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

function runFlow(cmd: Command, ctx: CommandContext, opts: Options | null, scope: Scope, build: Build): void {
  if (cmd.arg === null || cmd.arg.kind === 'seq') {
    ctx.report('runFlow takes a file, or a map with file or commands (and env)');
    return;
  }
  if (!opts) {
    const file = scalarText(cmd.arg, ctx);
    if (file !== undefined) include(file, ctx, scope, {}, build);
    return;
  }
  const conditional = opts.has('when');
  if (conditional) opts.refuse('when', "option 'when' is not supported (conditional flows: simfleet runs the same steps every time)");
  const envNode = opts.raw('env');
  const given = envNode ? readEnv(envNode, ctx, 'env') : {};
  const file = opts.str('file');
  const commands = opts.raw('commands');
  opts.finish();
  if (opts.has('file') === opts.has('commands')) {
    ctx.report('runFlow takes either file or commands');
    return;
  }
  const before = build.steps.length;
  if (file !== undefined) include(file, ctx, scope, given, build);
  if (commands) {
    const nested = toCommands(commands, (line, command, message) => build.problems.push({ file: scope.file, line, command: command || 'runFlow', message }));
    expand(nested, { ...scope, env: { ...scope.env, ...given } }, build);
  }
  // the conditional block is still checked for problems, but its steps would run unconditionally
  if (conditional) build.steps.length = before;
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
  const parsed = parseFlow(text, (line, command, message) => build.problems.push({ file, line, command, message }));
  const headerEnv = { ...scope.env, ...build.caller, ...given };
  const header = readHeader(parsed.header, contextFor(build, file, parsed.header?.line ?? 0, 'header', headerEnv));
  const env = scopeEnv(scope.env, header.env, build.caller, given);
  expand(parsed.commands, { ...scope, file, env, chain: [...scope.chain, file] }, build);
}

function repeat(ctx: CommandContext, opts: Options | null, scope: Scope, build: Build): void {
  if (!opts) {
    ctx.report('repeat takes a map with times and commands');
    return;
  }
  if (opts.has('while')) opts.refuse('while', "option 'while' is not supported (simfleet unrolls a repeat, so it needs a fixed number of times)");
  const times = opts.has('times') ? opts.int('times', 1, MAX_TIMES) : undefined;
  const commands = opts.raw('commands');
  opts.finish();
  if (!opts.has('times') && !opts.has('while')) ctx.report('repeat needs times');
  if (!commands) {
    ctx.report('repeat needs commands');
    return;
  }
  const nested = toCommands(commands, (line, command, message) => build.problems.push({ file: scope.file, line, command: command || 'repeat', message }));
  // every round is the same steps with the same problems: expand once, then copy
  const before = build.steps.length;
  expand(nested, scope, build);
  const round = build.steps.slice(before);
  // without a fixed number of times the body is still checked, but it adds no steps
  if (times === undefined) build.steps.length = before;
  for (let i = 1; times !== undefined && i < times && !build.full; i++) add(structuredClone(round), ctx, build);
}
