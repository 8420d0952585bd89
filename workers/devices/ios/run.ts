// Runs one command-line tool (xcrun, axe, idb) with an argument array, a deadline and a cap on what
// it may print, and says precisely how it failed: not there, too slow, or an exit code with its own
// words. Callers turn a ToolFailure into a DeviceError that names the fix.
import { spawn } from 'node:child_process';

export interface RunOptions {
  timeoutMs: number;
  /** Bytes of stdout kept before the tool is stopped as runaway (stderr keeps 64 KiB). */
  maxBytes?: number;
  /** Written to the tool's stdin, which is then closed. */
  input?: string;
  signal?: AbortSignal;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  ms: number;
}

export type FailureKind = 'missing' | 'timeout' | 'exit' | 'overflow' | 'aborted';

export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
  constructor(
    readonly kind: FailureKind,
    readonly tool: string,
    readonly args: readonly string[],
    message: string,
    readonly stderr = '',
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }

  /** What the tool said, for messages: stderr's first lines (simctl's are the useful ones). */
  get said(): string {
    return this.stderr.trim().split('\n').slice(0, 4).join(' ').slice(0, 600);
  }
}

const STDERR_CAP = 64 * 1024;

export function run(file: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], signal: opts.signal });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failed: ToolFailure | undefined;
    const stop = (f: ToolFailure) => {
      failed ??= f;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () => stop(new ToolFailure('timeout', file, args, `${describe(file, args)} did not finish within ${Math.round(opts.timeoutMs / 100) / 10} s`)),
      opts.timeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxBytes) stop(new ToolFailure('overflow', file, args, `${describe(file, args)} printed more than ${maxBytes} bytes`));
      else out.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (err.length < STDERR_CAP) err += chunk.toString('utf8');
    });
    if (opts.input !== undefined) {
      // A tool that exits without reading its input must not crash the worker with EPIPE.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(opts.input);
    }
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (e.name === 'AbortError') failed ??= new ToolFailure('aborted', file, args, `${describe(file, args)} was cancelled`);
      else if (e.code === 'ENOENT' || e.code === 'EACCES')
        failed ??= new ToolFailure('missing', file, args, `${file} is not there or not executable (${e.code})`);
      else failed ??= new ToolFailure('exit', file, args, `${describe(file, args)} could not start: ${e.message}`);
      reject(failed);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failed) return reject(failed);
      const ms = performance.now() - started;
      if (code === 0) return resolve({ stdout: Buffer.concat(out), stderr: err, ms });
      const said = err.trim().split('\n')[0] ?? '';
      reject(
        new ToolFailure(
          'exit',
          file,
          args,
          `${describe(file, args)} failed (${code === null ? `signal ${signal}` : `exit ${code}`})${said ? `: ${said}` : ''}`,
          err,
          code,
        ),
      );
    });
  });
}

/** The command as a person would type it, shortened: for messages, never for running. */
export function describe(file: string, args: readonly string[]): string {
  const base = file.split('/').pop() ?? file;
  const shown = args.slice(0, 4).map((a) => (/^[\w.:/=-]+$/.test(a) ? a : JSON.stringify(a.length > 30 ? `${a.slice(0, 30)}…` : a)));
  return `\`${[base, ...shown].join(' ')}${args.length > 4 ? ' …' : ''}\``;
}
