// Text recognition with Tesseract, the maintained engine Debian packages with its English data
// (apt-get install tesseract-ocr tesseract-ocr-eng): nothing is downloaded at run time. It runs
// as a child process per image, reading a PNG on stdin; a missing binary makes the tier
// unavailable (said once, with how to install it), never an error on the read that wanted it.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { parseTsv, type OcrLine } from './tsv.js';

const TIMEOUT_MS = 8000;

export interface RecogniserStatus {
  available: boolean;
  detail: string;
  hint?: string;
}

/** Said once (the start banner, the log, the docs), never in every outline. */
export const TESSERACT_INSTALL_HINT = 'sudo apt-get install -y tesseract-ocr tesseract-ocr-eng (macOS: brew install tesseract), or set SIMFLEET_TESSERACT';

export interface TextRecogniser {
  /** Whether the engine can run here; `detail` says why not, and `hint` how to install it. */
  status(): Promise<RecogniserStatus>;
  /**
   * The lines of text in a PNG, boxes in its pixels; `line` reads it as a single line of text.
   * A run longer than `timeoutMs` is stopped and rejected.
   */
  recognise(png: Buffer, layout?: 'page' | 'line', timeoutMs?: number): Promise<OcrLine[]>;
}

/** Runs waiting for a free process beyond this are refused at once: recognition is behind, not broken. */
const MAX_WAITING = 32;

export class RecogniserBusyError extends Error {}

export class Tesseract implements TextRecogniser {
  private checked: Promise<RecogniserStatus> | undefined;
  /**
   * A process per core at most. A read no longer stops a run at its budget (the run finishes for the
   * next read), so runs can outlive the read that began them; this keeps them from piling up.
   */
  private readonly maxRunning = Math.max(1, availableParallelism());
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly binary: string,
    private readonly logger: Logger,
  ) {}

  status(): Promise<RecogniserStatus> {
    return (this.checked ??= run(this.binary, ['--version'], undefined, TIMEOUT_MS).then(
      (out) => ({ available: true, detail: out.split('\n')[0]!.trim() }),
      (err: Error) => {
        const detail = `${this.binary} cannot run (${err.message.slice(0, 500)})`;
        this.logger.warn({ hint: TESSERACT_INSTALL_HINT }, `text recognition unavailable: ${detail}`);
        return { available: false, detail, hint: TESSERACT_INSTALL_HINT };
      },
    ));
  }

  async recognise(png: Buffer, layout: 'page' | 'line' = 'page', timeoutMs = TIMEOUT_MS): Promise<OcrLine[]> {
    // Automatic page segmentation (psm 3) for an area; sparse-text mode (11) sounds made for
    // screens but missed a word drawn on a button that psm 3 read at 96 %. A lone letter or a
    // short label needs single-line mode (7): psm 3 finds no text in it.
    await this.turn();
    try {
      return parseTsv(
        await run(this.binary, ['stdin', 'stdout', '--psm', layout === 'line' ? '7' : '3', '-l', 'eng', 'tsv'], png, Math.min(timeoutMs, TIMEOUT_MS)),
      );
    } finally {
      // The process slot passes straight to the next waiting run, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Resolves when a process may start; the caller then holds one of the `running` slots. */
  private async turn(): Promise<void> {
    if (this.running < this.maxRunning) {
      this.running++;
      return;
    }
    if (this.waiting.length >= MAX_WAITING) throw new RecogniserBusyError(`${this.waiting.length} text recognition runs are already waiting for a process`);
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
}

function run(binary: string, args: string[], input: Buffer | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within ${Math.round(timeoutMs)} ms`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new Error(`exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}`));
    });
    child.stdin.on('error', () => undefined); // an engine that exits early closes its stdin
    child.stdin.end(input);
  });
}
