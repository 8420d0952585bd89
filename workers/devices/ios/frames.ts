// Where one simulator's frames come from. With the native helper configured and working, from its
// ScreenCaptureKit stream (a frame only when the window's content changed, with damage); otherwise,
// or once the helper fails, from `simctl io screenshot` polled by PolledFrames, which passes on only
// captures that differ. Listeners do not notice a switch. What the source costs is reported.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Frame } from '../backend.js';
import { PolledFrames, type Capture } from '../polled-frames.js';
import { FrameHelper, type AttachRequest, type HelperTimeouts } from './frame-helper.js';

export interface IosFramesOptions {
  /** The native helper's executable; undefined: poll screenshots. */
  helperPath: string | undefined;
  capture: () => Promise<Capture>;
  /** Time between captures while the screen moves; four times that once it is still. */
  pollMs: number;
  logger: Logger;
  helperTimeouts?: HelperTimeouts;
}

export class IosFrames {
  private readonly events = new EventEmitter();
  private readonly polled: PolledFrames;
  private helper: FrameHelper | undefined;
  /** Why the configured helper is not in use (it failed to start, or stopped). */
  private helperProblem: string | undefined;
  private offSource: (() => void) | undefined;
  /** The last helper frame passed on, so a snapshot that shows something new is passed on too. */
  private lastHelperDigest: string | undefined;

  constructor(private readonly opts: IosFramesOptions) {
    this.events.setMaxListeners(0);
    this.polled = new PolledFrames({
      capture: opts.capture,
      fastMs: opts.pollMs,
      slowMs: opts.pollMs * 4,
      onError: (err) => opts.logger.warn({ err: err.message }, 'a screenshot for the frame stream failed'),
    });
  }

  /** Starts the native helper for this simulator if one is configured and not already running. */
  async activate(req: AttachRequest): Promise<void> {
    if (!this.opts.helperPath || this.helper) return;
    try {
      const helper = await FrameHelper.start(this.opts.helperPath, req, this.opts.logger, this.opts.helperTimeouts);
      this.helper = helper;
      this.helperProblem = undefined;
      helper.onExit((reason) => {
        if (this.helper !== helper) return;
        this.helper = undefined;
        this.helperProblem = reason;
        this.opts.logger.warn({ reason }, 'the native frame helper stopped; polling screenshots instead');
        this.resubscribe();
      });
      this.resubscribe();
    } catch (err) {
      this.helperProblem = `${(err as Error).message}${'hint' in (err as object) ? ` (${(err as { hint: string }).hint})` : ''}`;
      this.opts.logger.warn({ reason: this.helperProblem }, 'the native frame helper is not used; polling screenshots');
    }
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.events.on('frame', listener);
    if (this.events.listenerCount('frame') === 1) this.resubscribe();
    return () => {
      this.events.off('frame', listener);
      if (this.events.listenerCount('frame') === 0) this.resubscribe();
    };
  }

  /**
   * The screen now: from the helper when it runs (a screenshot if it cannot answer), else captured.
   * Either way a probe that differs from the last frame passed on is passed on as well, as
   * PolledFrames does: it is a change the stream would otherwise report a moment later.
   */
  async probe(): Promise<Frame> {
    if (this.helper) {
      try {
        const frame = await this.helper.snapshot();
        this.fromHelper(frame);
        return frame;
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message }, 'the frame helper could not take a snapshot; taking a screenshot');
      }
    }
    return this.polled.probe();
  }

  /** An input went in: look sooner (polling only; the helper sees changes as they happen). */
  poke(): void {
    if (!this.helper) this.polled.poke();
  }

  forget(): void {
    this.polled.forget();
    this.lastHelperDigest = undefined;
  }

  /** The source and its cost, for the backend status. */
  describe(): string {
    if (this.helper) {
      const c = this.helper.cost();
      return `native helper ${this.helper.label}: ${c.frames} frame(s)${c.medianMs === null ? '' : `, median ${c.medianMs} ms to encode one`}`;
    }
    const c = this.polled.cost();
    const cost =
      c.medianMs === null ? 'no capture yet' : `median ${c.medianMs} ms per capture over ${Math.min(c.captures, 50)}, ${c.changed} of ${c.captures} changed`;
    return `polling \`simctl io screenshot\` (${cost})${this.helperProblem ? `; native helper not used: ${this.helperProblem}` : ''}`;
  }

  get source(): 'helper' | 'polling' {
    return this.helper ? 'helper' : 'polling';
  }

  async close(): Promise<void> {
    this.offSource?.();
    this.offSource = undefined;
    this.polled.stop();
    const helper = this.helper;
    this.helper = undefined;
    await helper?.close();
  }

  private resubscribe(): void {
    this.offSource?.();
    this.offSource = undefined;
    if (this.events.listenerCount('frame') === 0) return;
    this.offSource = this.helper ? this.helper.onFrame((f) => this.fromHelper(f)) : this.polled.onFrame((f) => this.events.emit('frame', f));
  }

  private fromHelper(frame: Frame): void {
    const digest = createHash('sha1').update(frame.data).digest('hex');
    if (digest === this.lastHelperDigest) return;
    this.lastHelperDigest = digest;
    this.events.emit('frame', frame);
  }
}
