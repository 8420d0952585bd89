// A device's eyes: every frame the backend sends is analysed once, in order, on libvips' threads
// (never on the request path, never holding input), kept for a minute, and followed for motion and
// settling. Everything perception answers comes from here, in milliseconds, without touching the
// device. The eyes never close: they run for every device the worker has, whether anyone asks or not.
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import type { DeviceBackend, Frame } from '../devices/backend.js';
import { analyse, FINE_W, fineHeight, GRID_W, gridHeight, toPoints, type Box, type FrameAnalysis } from './analysis.js';
import { analysisBytes, FrameStore } from './frame-store.js';
import { grayGrid } from './image.js';
import { MarkBook, type Mark } from './marks.js';
import type { Transition } from './motion.js';
import type { IgnorableKind } from './rules.js';
import { Activity, significantChange, type MovingRegion, type WaitRequest, type WaitStatus } from './settle.js';

/** All the eyes need of a device: its frames, a probe of the screen now, and its size. Any backend is one. */
export type FrameSource = Pick<DeviceBackend, 'onFrame' | 'probe' | 'screen'>;

/** A probe slower than this is given up on; the stream's judgement stands. */
const PROBE_TIMEOUT_MS = 3000;

export interface EyesOptions {
  retentionMs: number;
  budgetBytes: number;
  quietMs: number;
  /** Time for settling, waits and ages; the system clock unless a test gives its own. */
  clock?: Clock;
}

export interface FrameRef {
  seq: number;
  wallAt: number;
  ageMs: number;
}

export interface ChangesAnswer {
  mark: string;
  changed: 'yes' | 'no' | 'unknown';
  reason?: string;
  fraction: number;
  regions: Box[];
  ignored: { box: Box; kind: IgnorableKind }[];
  settled: boolean;
  transition: (Transition & { settledWallAt: number }) | null;
  framesSince: number;
  frame: FrameRef | null;
}

export interface WaitAnswer {
  status: WaitStatus;
  waitedMs: number;
  frame: FrameRef | null;
  movingRegion?: MovingRegion;
  transition?: Transition;
}

export interface EyesHoldings {
  frames: number;
  frameBytes: number;
  marks: number;
  /** Analysed frames that only a mark still refers to (the store has let them go). */
  markedFrameBytes: number;
  fineProfilesPending: number;
}

/** How long each step of taking a frame in took, for the benchmarks (last 500 frames). */
export interface PhaseTimings {
  /** From receipt to the start of decoding: time spent queued behind earlier frames. */
  queuedMs: number[];
  decodeMs: number[];
  analysisMs: number[];
}

export class Eyes {
  readonly store: FrameStore;
  readonly activity: Activity;
  readonly marks = new MarkBook();
  readonly timings: PhaseTimings = { queuedMs: [], decodeMs: [], analysisMs: [] };
  private seq = 0;
  /** Frames that arrived before the device knew its screen size, and were not analysed. */
  skippedUnmeasured = 0;
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private confirming: Promise<boolean> | undefined;
  private readonly profiling = new Map<number, Promise<void>>();
  /** Probes taken, and how many found the screen had moved on without a frame (stalled streams). */
  readonly probes = { taken: 0, caughtStalls: 0, failed: 0 };
  readonly clock: Clock;

  constructor(
    private readonly device: FrameSource,
    opts: EyesOptions,
    private readonly logger: Logger,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.store = new FrameStore({ retentionMs: opts.retentionMs, budgetBytes: opts.budgetBytes });
    this.activity = new Activity(
      this.store,
      opts.quietMs,
      () => this.confirmStill(),
      (f) => this.profile(f),
      this.clock,
    );
  }

  /**
   * Gives a frame its fine profile (analysis.ts), from the encoded frame while it is still the
   * newest: transitions are measured between settled frames and marks, which are the newest frame
   * when they are taken, so only those few pay the decode (about 5 ms on libvips' threads; every
   * frame paying it would triple the decode cost of an animation). A frame no longer newest, or one
   * whose decode fails, stays without: motion then measures on the grid alone.
   */
  profile(f: FrameAnalysis): Promise<void> {
    if (f.fine) return Promise.resolve();
    const pending = this.profiling.get(f.seq);
    if (pending) return pending;
    const encoded = this.store.newestEncoded();
    if (!encoded || encoded.seq !== f.seq) return Promise.resolve();
    const h = fineHeight(f.heightPt);
    const job = grayGrid(encoded.frame, FINE_W, h)
      .then((gray) => this.store.attachFine(f, { w: FINE_W, h, gray }))
      .catch((err: unknown) => this.logger.debug({ err, seq: f.seq }, 'no fine profile for this frame'))
      .finally(() => this.profiling.delete(f.seq));
    this.profiling.set(f.seq, job);
    return job;
  }

  start(): void {
    this.unsubscribe ??= this.device.onFrame((frame) => this.enqueue(frame));
  }

  private enqueue(frame: Frame): Promise<void> {
    this.queue = this.queue.then(() => this.take(frame)).catch((err: unknown) => this.logger.warn({ err }, 'a frame could not be analysed'));
    return this.queue;
  }

  /**
   * Whether the screen really is what the newest frame shows: a probe drawn now, compared with it.
   * When it is not (the stream stalled through a change), the probe is taken in as a frame, so the
   * change counts as motion, and the answer is false. Concurrent askers share one probe. A probe
   * that fails or times out leaves the stream's judgement standing (true), and is logged.
   */
  confirmStill(): Promise<boolean> {
    return (this.confirming ??= this.probeOnce().finally(() => (this.confirming = undefined)));
  }

  private async probeOnce(): Promise<boolean> {
    await this.idle();
    const before = this.store.newest();
    if (!before) return true;
    let frame: Frame;
    let cancel: (() => void) | undefined;
    const givenUp = new AbortController();
    try {
      this.probes.taken++;
      const late = new Promise<never>(
        (_, reject) => (cancel = this.clock.timeout(() => (givenUp.abort(), reject(new Error(`no probe within ${PROBE_TIMEOUT_MS} ms`))), PROBE_TIMEOUT_MS)),
      );
      frame = await Promise.race([this.device.probe(givenUp.signal), late]);
    } catch (err) {
      this.probes.failed++;
      this.logger.debug({ err: (err as Error).message }, 'probe failed; trusting the frame stream');
      return true;
    } finally {
      cancel?.();
    }
    const { widthPt, heightPt } = this.device.screen();
    const gray = await grayGrid(frame, GRID_W, gridHeight(widthPt, heightPt));
    // Drawing a probe may itself send a frame (Chromium's screencast does): compare with whatever
    // is newest now.
    await this.idle();
    const newest = this.store.newest()!;
    const probe = analyse(gray, { seq: newest.seq, at: frame.receivedAt, wallAt: this.clock.wall(), widthPt, heightPt });
    if (!significantChange(newest, probe, this.store.recent(2000)).changed) return true;
    if (newest !== before) return false; // the stream moved on while probing: it speaks for itself
    this.probes.caughtStalls++;
    this.logger.info(
      { seq: newest.seq, staleMs: Math.round(frame.receivedAt - newest.at) },
      'the frame stream stalled through a change; the probe is taken in as a frame',
    );
    await this.enqueue(frame);
    return false;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.activity.stop();
  }

  /** What these eyes hold, for the worker's heartbeat. */
  held(): EyesHoldings {
    const { frames, bytes } = this.store.stats();
    let markedFrameBytes = 0;
    for (const f of this.marks.frames()) if (!this.store.keeps(f)) markedFrameBytes += analysisBytes(f);
    return { frames, frameBytes: bytes, marks: this.marks.size, markedFrameBytes, fineProfilesPending: this.profiling.size };
  }

  /** Resolves when every frame received so far has been analysed. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Resolves when nothing the eyes started is still running: frames, a probe, fine profiles (for a virtual clock's settling). */
  async quiesced(): Promise<void> {
    for (;;) {
      await Promise.all([this.queue, this.confirming, this.activity.classifying, ...this.profiling.values()]);
      if (!this.confirming && !this.profiling.size) return;
    }
  }

  /** A mark on the newest frame; `byId: false` when the caller keeps it and never gives its id out. */
  mark(epoch: number, opts: { byId?: boolean } = {}): Mark {
    this.marks.forgetExcept(epoch);
    const newest = this.store.newest();
    // A mark is where a later "what happened" is measured from.
    if (newest) void this.profile(newest);
    return this.marks.take(epoch, newest, opts);
  }

  changes(mark: Mark): ChangesAnswer {
    const newest = this.store.newest();
    const base = { mark: mark.id, fraction: 0, regions: [], ignored: [], settled: this.activity.isSettled(), transition: null, frame: this.ref(newest) };
    if (!newest) return { ...base, changed: 'unknown', reason: 'the device has not sent a frame yet', framesSince: 0 };
    if (!mark.frame) return { ...base, changed: 'unknown', reason: 'nothing was on screen when the mark was taken', framesSince: newest.seq };
    const framesSince = newest.seq - mark.frame.seq;
    if (framesSince === 0) return { ...base, changed: 'no', framesSince };
    const change = significantChange(mark.frame, newest, this.store.recent(2000));
    const transition = this.activity.transitionsAfter(mark.frame.seq).at(-1);
    return {
      ...base,
      changed: change.changed ? 'yes' : 'no',
      fraction: Math.round(change.fraction * 1000) / 1000,
      regions: largest(change.regions, MAX_REGIONS).map((r) => toPoints(r, newest)),
      ignored: change.ignored.slice(0, MAX_REGIONS).map((i) => ({ box: toPoints(i.box, newest), kind: i.kind })),
      transition: transition
        ? {
            kind: transition.kind,
            confidence: transition.confidence,
            evidence: transition.evidence,
            settledWallAt: transition.settledWallAt,
            ...(transition.offsetPt ? { offsetPt: transition.offsetPt } : {}),
          }
        : null,
      framesSince,
    };
  }

  async wait(req: Omit<WaitRequest, 'since'> & { since: Mark | undefined }): Promise<WaitAnswer> {
    await this.idle(); // frames already received count before the wait begins
    const r = await this.activity.wait({ ...req, since: req.since?.frame });
    return {
      status: r.status,
      waitedMs: r.waitedMs,
      frame: this.ref(r.frame),
      ...(r.movingRegion ? { movingRegion: r.movingRegion } : {}),
      ...(r.transition ? { transition: r.transition } : {}),
    };
  }

  private ref(f: FrameAnalysis | undefined): FrameRef | null {
    return f ? { seq: f.seq, wallAt: f.wallAt, ageMs: Math.max(0, Math.round(this.clock.wall() - f.wallAt)) } : null;
  }

  private async take(frame: Frame): Promise<void> {
    const { widthPt, heightPt } = this.device.screen();
    // A device whose screen is not measured yet (an iOS simulator before its first session) has
    // frames but no points to place them in: they are skipped, not failed one by one.
    if (!(widthPt > 0 && heightPt > 0)) {
      this.skippedUnmeasured++;
      return;
    }
    const t0 = performance.now();
    const gray = await grayGrid(frame, GRID_W, gridHeight(widthPt, heightPt));
    const t1 = performance.now();
    const analysis = analyse(gray, {
      seq: ++this.seq,
      at: frame.receivedAt,
      wallAt: this.clock.wall() - (this.clock.now() - frame.receivedAt),
      widthPt,
      heightPt,
    });
    this.store.add(analysis, frame);
    this.activity.onFrame(analysis);
    const t2 = performance.now();
    push(this.timings.queuedMs, t0 - frame.receivedAt);
    push(this.timings.decodeMs, t1 - t0);
    push(this.timings.analysisMs, t2 - t1);
  }
}

/** Answers name at most this many regions, the largest first: enough to point at, small to send. */
export const MAX_REGIONS = 16;

function largest(boxes: Box[], n: number): Box[] {
  return [...boxes].sort((a, b) => b.width * b.height - a.width * a.height).slice(0, n);
}

function push(xs: number[], x: number): void {
  xs.push(x);
  if (xs.length > 500) xs.shift();
}
