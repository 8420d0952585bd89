// The worker side of the native frame helper (native/ios-frames): spawns it for one simulator,
// checks the protocol version it says hello with, attaches it to the simulator's window, and turns
// its frames into boundary Frames with their damage in points. Anything unexpected (no hello, the
// wrong version, a malformed message, an exit) ends the helper with a message that says so; the
// device then polls screenshots instead (frames.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Frame } from '../backend.js';
import { encodeCommand, HELPER_PROTOCOL, MessageReader, toFrame, type DamagedFrame, type HelperMessage } from './helper-protocol.js';

export type { DamagedFrame } from './helper-protocol.js';

export interface AttachRequest {
  udid: string;
  name: string;
  runtime: string;
  widthPt: number;
  heightPt: number;
  widthPx: number;
  heightPx: number;
}

export interface HelperTimeouts {
  helloMs: number;
  attachMs: number;
  snapshotMs: number;
}

const DEFAULT_TIMEOUTS: HelperTimeouts = { helloMs: 5000, attachMs: 15_000, snapshotMs: 5000 };
const REBUILD_HINT = 'rebuild the helper from native/ios-frames (./build.sh) at this simfleet version';
const COST_WINDOW = 50;

export class FrameHelperError extends Error {
  override readonly name = 'FrameHelperError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export class FrameHelper {
  private readonly events = new EventEmitter();
  private readonly encodeMs: number[] = [];
  private frames = 0;
  private snapshotId = 0;
  private exitReason: string | undefined;
  private stderrTail = '';
  private widthPt: number;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly path: string,
    /** "simfleet-ios-frames 0.1.0 (protocol 1)". */
    readonly label: string,
    widthPt: number,
  ) {
    this.widthPt = widthPt;
    this.events.setMaxListeners(0);
  }

  /** Starts the helper and attaches it; rejects with what went wrong (the helper is stopped then). */
  static start(path: string, req: AttachRequest, logger: Logger, timeouts: HelperTimeouts = DEFAULT_TIMEOUTS): Promise<FrameHelper> {
    const child = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    // Messages that arrive before the helper object exists (hello, attached, and often the initial
    // frame in the same chunk) wait here in order.
    const queue: HelperMessage[] = [];
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    let stderr = '';
    let helper: FrameHelper | undefined;
    const fail = (e: Error) => {
      failure ??= e;
      wake?.();
    };
    const reader = new MessageReader(
      (m) => {
        if (helper) return helper.receive(m);
        queue.push(m);
        wake?.();
      },
      (e) => {
        const why = `the frame helper sent ${e.message}`;
        if (helper) helper.stop(why);
        else fail(new FrameHelperError(why, REBUILD_HINT));
      },
    );
    child.stdout.on('data', (c: Buffer) => reader.push(c));
    child.stderr.on('data', (c: Buffer) => {
      const text = c.toString('utf8');
      if (stderr.length < 65_536) stderr += text;
      if (helper) helper.stderrTail = (helper.stderrTail + text).slice(-2000);
      for (const line of text.split('\n').filter(Boolean)) logger.debug({ helper: line.slice(0, 4096) }, 'frame helper says');
    });
    child.stdin.on('error', () => undefined);
    const said = () => (stderr.trim() ? `; it said: ${stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400)}` : '');
    child.on('error', (err: NodeJS.ErrnoException) =>
      fail(
        new FrameHelperError(
          `the frame helper at ${path} could not start (${err.code ?? err.message})`,
          'build it with native/ios-frames/build.sh on a Mac, or leave the frame helper setting empty to poll screenshots',
        ),
      ),
    );
    // 'close', not 'exit': by then stderr has been read to the end, so its last words are kept.
    child.on('close', (code, signal) => {
      if (helper) helper.exited(code, signal);
      else
        fail(
          new FrameHelperError(
            `the frame helper exited (${code === null ? `signal ${signal}` : `code ${code}`}) before it was attached${said()}`,
            'run it by hand to see why; on a Mac it needs Screen Recording permission and a visible Simulator window',
          ),
        );
    });

    const next = async (ms: number, what: string): Promise<HelperMessage> => {
      const deadline = performance.now() + ms;
      for (;;) {
        const m = queue.shift();
        if (m) return m;
        if (failure) throw failure;
        const left = deadline - performance.now();
        if (left <= 0) throw new FrameHelperError(`the frame helper said nothing for ${ms / 1000} s while ${what}${said()}`, REBUILD_HINT);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    };

    return (async () => {
      try {
        const hello = await next(timeouts.helloMs, 'waiting for its hello');
        if (hello.verb !== 'hello') throw new FrameHelperError(`the frame helper's first message was \`${hello.verb}\`, not \`hello\``, REBUILD_HINT);
        const version = hello.body.protocol;
        if (version !== HELPER_PROTOCOL) {
          throw new FrameHelperError(
            `the frame helper at ${path} speaks protocol ${JSON.stringify(version)}; this worker speaks protocol ${HELPER_PROTOCOL}`,
            REBUILD_HINT,
          );
        }
        child.stdin.write(encodeCommand('attach', { ...req }));
        const attached = await next(timeouts.attachMs, 'attaching to the simulator window');
        if (attached.verb === 'error') {
          const hint = typeof attached.body.hint === 'string' ? attached.body.hint : 'see the helper README';
          throw new FrameHelperError(`the frame helper could not attach: ${String(attached.body.code)}: ${String(attached.body.message ?? '')}`, hint);
        }
        if (attached.verb !== 'attached') throw new FrameHelperError(`the frame helper answered attach with \`${attached.verb}\``, REBUILD_HINT);
        const label = `${String(hello.body.helper ?? 'frame helper')} ${String(hello.body.version ?? '')} (protocol ${HELPER_PROTOCOL})`.replace(/\s+/g, ' ');
        helper = new FrameHelper(child, path, label, req.widthPt);
        for (const m of queue.splice(0)) helper.receive(m);
        // It may have died between saying `attached` and now: then it is stopped from the start.
        if (failure) helper.stop(failure.message);
        logger.info({ window: attached.body.window, helper: label }, 'native frame helper attached');
        return helper;
      } catch (err) {
        child.stdin.end(encodeCommand('quit'));
        setTimeout(() => child.kill('SIGKILL'), 1000).unref();
        throw err;
      }
    })();
  }

  onFrame(listener: (frame: DamagedFrame) => void): () => void {
    this.events.on('frame', listener);
    return () => this.events.off('frame', listener);
  }

  /** Called once when the helper stops for good, with why. */
  onExit(listener: (reason: string) => void): void {
    if (this.exitReason) listener(this.exitReason);
    else this.events.once('exit', listener);
  }

  /** The screen now, drawn by the helper whether or not it changed. */
  snapshot(timeoutMs = DEFAULT_TIMEOUTS.snapshotMs): Promise<Frame> {
    if (this.exitReason) return Promise.reject(new FrameHelperError(`the frame helper has stopped: ${this.exitReason}`, REBUILD_HINT));
    const id = ++this.snapshotId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(new FrameHelperError(`the frame helper did not answer snapshot ${id} within ${timeoutMs} ms`, REBUILD_HINT)),
        timeoutMs,
      );
      const finish = (r: Frame | Error) => {
        clearTimeout(timer);
        this.events.off(`snapshot:${id}`, finish);
        this.events.off('exit', onExit);
        if (r instanceof Error) reject(r);
        else resolve(r);
      };
      const onExit = (reason: string) => finish(new FrameHelperError(`the frame helper stopped: ${reason}`, REBUILD_HINT));
      this.events.on(`snapshot:${id}`, finish);
      this.events.once('exit', onExit);
      this.child.stdin.write(encodeCommand('snapshot', { id }));
    });
  }

  cost(): { frames: number; medianMs: number | null } {
    const sorted = [...this.encodeMs].sort((a, b) => a - b);
    return { frames: this.frames, medianMs: sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10 : null };
  }

  get stopped(): string | undefined {
    return this.exitReason;
  }

  /** Asks the helper to quit, and makes sure it does. */
  async close(): Promise<void> {
    if (this.exitReason) return;
    this.exitReason = 'closed by the worker';
    const gone = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    this.child.stdin.end(encodeCommand('quit'));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 1000);
    await gone;
    clearTimeout(timer);
  }

  private receive(m: HelperMessage): void {
    if (m.verb === 'frame') return this.frame(m);
    if (m.verb === 'error') {
      const text = `${String(m.body.code)}: ${String(m.body.message ?? '')}`;
      if (typeof m.body.id === 'number')
        this.events.emit(`snapshot:${m.body.id}`, new FrameHelperError(`the frame helper could not take a snapshot: ${text}`, REBUILD_HINT));
      if (m.body.fatal === true) this.stop(`it reported ${text}`);
      return;
    }
    // stats, bye and verbs from a newer helper carry nothing the worker needs to act on.
  }

  private frame(m: HelperMessage): void {
    const frame = toFrame(m, this.widthPt);
    if (!frame) return this.stop('it sent a frame without a size');
    if (typeof m.body.encodeMs === 'number') {
      this.encodeMs.push(m.body.encodeMs);
      if (this.encodeMs.length > COST_WINDOW) this.encodeMs.shift();
    }
    if (m.body.reason === 'snapshot' && typeof m.body.id === 'number') {
      this.events.emit(`snapshot:${m.body.id}`, frame);
      return;
    }
    this.frames++;
    this.events.emit('frame', frame);
  }

  private stop(reason: string): void {
    if (this.exitReason) return;
    this.exitReason = reason;
    this.child.kill('SIGKILL');
    this.events.emit('exit', reason);
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitReason) return;
    const tail = this.stderrTail.trim() ? ` (it said: ${this.stderrTail.trim().split('\n').slice(-2).join(' ').slice(0, 300)})` : '';
    this.exitReason = `the frame helper at ${this.path} exited (${code === null ? `signal ${signal}` : `code ${code}`})${tail}`;
    this.events.emit('exit', this.exitReason);
  }
}
