// Reads a command's options so that none can slip through: every key is either read, refused with a
// reason, or reported by finish() as unknown. Strings are substituted (`${NAME}`) as they are read.
import { substitute } from './env.js';
import type { CommandContext, YMap, YNode } from './types.js';

export class Options {
  private readonly seenKeys = new Set<string>();

  constructor(
    readonly node: YMap,
    readonly ctx: CommandContext,
  ) {}

  /** Whether the option was read (or refused) already. */
  seen(key: string): boolean {
    return this.seenKeys.has(key);
  }

  has(key: string): boolean {
    return this.node.entries.some((e) => e.key === key);
  }

  /** The raw node, for options that are themselves maps or lists (a selector, `env`, `commands`). */
  raw(key: string): YNode | undefined {
    this.seenKeys.add(key);
    return this.node.entries.find((e) => e.key === key)?.value;
  }

  line(key: string): number {
    return this.node.entries.find((e) => e.key === key)?.line ?? this.ctx.line;
  }

  str(key: string): string | undefined {
    const node = this.raw(key);
    if (!node) return undefined;
    return scalarText(node, this.ctx, key);
  }

  int(key: string, min: number, max: number): number | undefined {
    const text = this.str(key);
    if (text === undefined) return undefined;
    const n = toInt(text);
    if (n === undefined || n < min || n > max) return this.refuse(key, `option '${key}' must be a whole number from ${min} to ${max}, not "${text}"`);
    return n;
  }

  /** A Maestro timeout in ms; longer than simfleet's longest wait it is cut to that (the step fails sooner, never passes wrongly). */
  timeout(key: string): number | undefined {
    const n = this.int(key, 0, Number.MAX_SAFE_INTEGER);
    return n === undefined ? undefined : Math.min(60_000, Math.max(100, n));
  }

  bool(key: string): boolean | undefined {
    const text = this.str(key);
    if (text === undefined) return undefined;
    const b = toBool(text);
    if (b === undefined) return this.refuse(key, `option '${key}' must be true or false, not "${text}"`);
    return b;
  }

  /** Options simfleet cannot honour: each one present is a problem naming it. */
  unsupported(keys: readonly string[], why: string, instead: string): void {
    for (const key of keys) if (this.has(key)) this.refuse(key, `option '${key}' is not supported (${why}); instead: ${instead}`);
  }

  /** An option that is harmless at Maestro's default and a problem at any other value. */
  onlyDefault(key: string, expected: string, why: string): void {
    const text = this.str(key);
    if (text !== undefined && text.trim().toLowerCase() !== expected)
      this.refuse(key, `option '${key}' is only supported at Maestro's default (${expected}): ${why}; instead: leave it out`);
  }

  refuse(key: string, message: string): undefined {
    this.seenKeys.add(key);
    this.ctx.report(message, key, this.line(key));
    return undefined;
  }

  /** Reports every option nobody read. */
  finish(): void {
    for (const e of this.node.entries) {
      if (!this.seenKeys.has(e.key))
        this.ctx.report(
          `unknown option '${e.key}'; instead: check its spelling and indentation against Maestro's documentation of ${this.ctx.command}`,
          e.key,
          e.line,
        );
    }
  }
}

export function scalarText(node: YNode, ctx: CommandContext, option?: string): string | undefined {
  if (node.kind !== 'scalar') {
    ctx.report(`${option ? `option '${option}'` : 'the argument'} must be a single value, not a ${node.kind === 'seq' ? 'list' : 'map'}`, option, node.line);
    return undefined;
  }
  const { value, errors } = substitute(node.value, ctx.env);
  for (const e of errors) ctx.report(e, option, node.line);
  return errors.length ? undefined : value;
}

export function toInt(text: string): number | undefined {
  return /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : undefined;
}

export function toBool(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : undefined;
}
