// One Maestro command (not runFlow or repeat, which expand.ts unfolds) → simfleet steps, each
// stamped with where it was written and checked against the Step schema's limits, so a plan
// without problems is one the API accepts.
import { CHECKS } from './checks.js';
import type { Handler } from './handler.js';
import { INPUT } from './input.js';
import { MOTION } from './motion.js';
import type { Options } from './options.js';
import { unsupportedMessage } from './unsupported.js';
import type { Command, CommandContext, Step } from './types.js';

const HANDLERS: Record<string, Handler> = { ...INPUT, ...MOTION, ...CHECKS };

/** What a step inherits from the command and the blocks around it. */
export interface Marks {
  optional: boolean;
  note: string | undefined;
}

export function translate(cmd: Command, ctx: CommandContext, opts: Options | null, marks: Marks): Step[] {
  const handler = Object.hasOwn(HANDLERS, cmd.name) ? HANDLERS[cmd.name] : undefined;
  if (!handler) {
    ctx.report(unsupportedMessage(cmd.name));
    return [];
  }
  const steps = handler({ ctx, arg: cmd.arg, opts }) ?? [];
  opts?.finish();
  return steps
    .filter((s) => fits(s, ctx))
    .map((s) => ({
      ...s,
      ...(marks.optional ? { optional: true } : {}),
      ...(marks.note !== undefined ? { note: marks.note } : {}),
      source: { file: ctx.file, line: ctx.line, command: cmd.name },
    }));
}

/** The Step schema's string limits, checked where the strings come from substituted text. */
function fits(step: Step, ctx: CommandContext): boolean {
  const limits: [keyof Step, number, number][] = [
    ['target', 1, 200],
    ['to', 1, 200],
    ['text', 0, 10_000],
  ];
  let ok = true;
  for (const [field, min, max] of limits) {
    const value = step[field];
    if (typeof value === 'string' && (value.length < min || value.length > max)) {
      ctx.report(`the ${field === 'text' ? 'text' : 'target'} is ${value.length} characters long; simfleet takes ${min} to ${max}`);
      ok = false;
    }
  }
  return ok;
}
