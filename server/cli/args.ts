// Flag parsing for the simfleet command (node:util parseArgs), with usage errors that exit 2.
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseFlags(
  argv: string[],
  names: readonly string[],
  booleans: readonly string[] = [],
): { flags: Record<string, string | undefined>; bools: Record<string, boolean>; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const n of names) options[n] = { type: 'string' };
  for (const n of booleans) options[n] = { type: 'boolean' };
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const flags: Record<string, string | undefined> = {};
    const bools: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(values)) {
      if (typeof v === 'boolean') bools[k] = v;
      else flags[k] = v as string | undefined;
    }
    return { flags, bools, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
