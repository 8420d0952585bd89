// `simfleet inspect FILE...` and `simfleet inspect --compare FILE FILE...`: saved dumps read offline.
import { readFile } from 'node:fs/promises';
import { comparePairs, inspect, INSPECT_FORMATS, InspectError, inspectJson, inspectText, pairsText, type InspectFormat } from '../../workers/index.js';
import { UsageError } from './args.js';

export interface InspectOptions {
  compare: boolean;
  json: boolean;
  format: string | undefined;
  density: string | undefined;
}

/** Returns the exit code: 0, or 1 when a file could not be read (the others are still reported). */
export async function runInspect(files: string[], opts: InspectOptions): Promise<number> {
  if (!files.length) throw new UsageError('usage: simfleet inspect [--compare] [--json] [--format F] [--density D] FILE...');
  if (opts.compare && files.length < 2) throw new UsageError('--compare needs at least two files');
  if (opts.format && !INSPECT_FORMATS.includes(opts.format as InspectFormat))
    throw new UsageError(`unknown --format "${opts.format}"; known: ${INSPECT_FORMATS.join(', ')}`);
  const density = opts.density === undefined ? undefined : Number(opts.density);
  if (density !== undefined && !(density > 0)) throw new UsageError(`--density must be a positive number of pixels per dp, not "${opts.density}"`);
  const read = [];
  const failures: { file: string; error: string; hint: string }[] = [];
  for (const file of files) {
    try {
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new InspectError(file, err.code === 'ENOENT' ? 'no such file' : `cannot be read (${err.code ?? err.message})`, 'check the path');
      });
      read.push(inspect(file, text, { ...(opts.format ? { format: opts.format as InspectFormat } : {}), ...(density ? { density } : {}) }));
    } catch (err) {
      if (!(err instanceof InspectError)) throw err;
      failures.push({ file, error: err.message, hint: err.hint });
      process.stderr.write(`simfleet inspect: ${err.message}\n  hint: ${err.hint}\n`);
    }
  }
  // The pairs among the files that could be read, and the failures beside them: a program reading
  // --json gets one document either way, and the exit code says that something is missing.
  if (opts.compare) {
    const pairs = comparePairs(read);
    process.stdout.write(opts.json ? `${JSON.stringify({ pairs, failures }, null, 2)}\n` : pairsText(pairs));
    return failures.length ? 1 : 0;
  }
  if (opts.json) process.stdout.write(`${JSON.stringify({ files: read.map(inspectJson), failures }, null, 2)}\n`);
  else process.stdout.write(read.map(inspectText).join('\n'));
  return failures.length ? 1 : 0;
}
