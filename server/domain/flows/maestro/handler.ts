// What every command translator receives and returns, and the few helpers they share, so each
// translator reads as the Maestro documentation of its command does.
import { type Options, scalarText } from './options.js';
import type { CommandContext, Step, YNode } from './types.js';

/** A command's argument in one of its three forms: bare (`- back`), scalar (`- tapOn: OK`) or map (`opts`). */
export interface Input {
  ctx: CommandContext;
  arg: YNode | null;
  /** set when the argument is a map; `optional` and `label` are already read from it */
  opts: Options | null;
}

/** The steps a command stands for (without source, optional or note, which the caller adds); undefined after a problem. */
export type Handler = (input: Input) => Step[] | undefined;

/** The scalar argument, substituted; undefined (and reported) when it is missing or not a scalar. */
export function scalarArg(input: Input, what: string): string | undefined {
  if (input.arg === null) return misuse(input, what);
  return scalarText(input.arg, input.ctx);
}

export function misuse(input: Input, expected: string): undefined {
  input.ctx.report(`${input.ctx.command} takes ${expected}`);
  return undefined;
}

/** Maestro's direction names (UP, Down, ...) → simfleet's. */
export function direction(text: string | undefined, input: Input, option: string): Step['direction'] | undefined {
  if (text === undefined) return undefined;
  const d = text.trim().toLowerCase();
  if (d === 'up' || d === 'down' || d === 'left' || d === 'right') return d;
  input.opts?.refuse(option, `option '${option}' must be UP, DOWN, LEFT or RIGHT, not "${text}"`);
  return undefined;
}

/** Runs `read` when the argument is a map, reporting any other form as misuse. */
export function withMap(input: Input, expected: string, read: (opts: Options) => Step[] | undefined): Step[] | undefined {
  return input.opts ? read(input.opts) : misuse(input, expected);
}
