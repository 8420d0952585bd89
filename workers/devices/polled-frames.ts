// A frame stream for screens that cannot say when they change (an emulator read through adb or its
// console, a simulator without the native frame helper): the screen is captured on a timer and a
// capture is passed on only when its bytes differ from the last one passed on, so a still screen
// still yields no frames above the boundary. Captures come faster right after an input (when the
// screen is most likely to move) and slow down while nothing changes. What each capture costs is
// measured, because on these platforms the frame source is the price of the eyes: the backend
// reports it in its status.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Frame } from './backend.js';

export interface Capture {
  data: Buffer;
  format: 'png' | 'jpeg';
  width: number;
  height: number;
  pixelsPerPoint: number;
}

export interface PollOptions {
  /** Takes the screen as it is now. */
  capture: () => Promise<Capture>;
  /** Time between captures while the screen moves or just after an input. */
  fastMs: number;
  /** Time between captures once the screen has been still for `stillCaptures` captures. */
  slowMs: number;
  stillCaptures?: number;
  /** A capture failed (the device went away): told once per run of failures. */
  onError?: (err: Error) => void;
}

export interface FrameCost {
  captures: number;
  changed: number;
  /** Median time one capture took over the last 50, in milliseconds (null before the first). */
  medianMs: number | null;
}

const COST_WINDOW = 50;

export class PolledFrames {
  private readonly events = new EventEmitter();
  private timer: NodeJS.Timeout | undefined;
  private lastDigest: string | undefined;
  private still = 0;
  private running = false;
  private inFlight: Promise<Frame> | undefined;
  private failing = false;
  private readonly durations: number[] = [];
  private captures = 0;
  private changed = 0;

  constructor(private readonly opts: PollOptions) {
    this.events.setMaxListeners(0);
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.events.on('frame', listener);
    if (!this.running) this.start();
    return () => {
      this.events.off('frame', listener);
      if (this.events.listenerCount('frame') === 0) this.stop();
    };
  }

  /**
   * The screen now. A probe that differs from the last frame passed on is passed on too: it is a
   * change the stream would otherwise report a moment later.
   */
  probe(): Promise<Frame> {
    return this.captureOnce();
  }

  /** An input was sent: look often for a while, since the screen is about to move. */
  poke(): void {
    this.still = 0;
    if (!this.running) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }

  /** Forget the last frame (after a reset), so the next capture is passed on whatever it shows. */
  forget(): void {
    this.lastDigest = undefined;
  }

  cost(): FrameCost {
    const sorted = [...this.durations].sort((a, b) => a - b);
    return { captures: this.captures, changed: this.changed, medianMs: sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10 : null };
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private start(): void {
    this.running = true;
    this.still = 0;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.captureOnce().then(
        () => this.schedule(this.still >= (this.opts.stillCaptures ?? 10) ? this.opts.slowMs : this.opts.fastMs),
        () => this.schedule(this.opts.slowMs),
      );
    }, delayMs);
    this.timer.unref?.();
  }

  /** One capture at a time: a probe during a timed capture shares it. */
  private captureOnce(): Promise<Frame> {
    this.inFlight ??= this.take().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async take(): Promise<Frame> {
    const started = performance.now();
    let shot: Capture;
    try {
      shot = await this.opts.capture();
    } catch (err) {
      if (!this.failing) this.opts.onError?.(err as Error);
      this.failing = true;
      throw err;
    }
    this.failing = false;
    const receivedAt = performance.now();
    this.captures++;
    this.durations.push(receivedAt - started);
    if (this.durations.length > COST_WINDOW) this.durations.shift();
    const frame: Frame = { ...shot, receivedAt };
    const digest = createHash('sha1').update(shot.data).digest('hex');
    if (digest === this.lastDigest) {
      this.still++;
      return frame;
    }
    this.lastDigest = digest;
    this.still = 0;
    this.changed++;
    this.events.emit('frame', frame);
    return frame;
  }
}
