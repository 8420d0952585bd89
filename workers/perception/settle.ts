// Settling, and waiting for it. "Settled" is a change and then stillness for a quiet window; a wait
// that starts before an animation begins first waits for the change (no change at all is
// "no-change", never "settled"). Stillness ignores a blinking caret and a status clock (rules.ts)
// and nothing else: while a spinner turns the screen is not settled, and a wait that times out
// says so with the spinner's box and how long it has moved.
//
// The tracker also follows the stream on its own: each time the screen settles after a change it
// classifies the transition from the previous settled frame (motion.ts), so "what happened" is
// known before anyone asks.
import { EventEmitter } from 'node:events';
import { CELL, diff, mergeBoxes, toPoints, union, type Box, type FrameAnalysis } from './analysis.js';
import type { FrameStore } from './frame-store.js';
import { classify, type Transition } from './motion.js';
import { ignorable, type IgnorableKind } from './rules.js';

export interface Change {
  changed: boolean;
  /** Share of cells that changed, outside ignorable regions. */
  fraction: number;
  /** Changed regions in grid pixels, outside ignorable ones. */
  regions: Box[];
  ignored: { box: Box; kind: IgnorableKind }[];
}

/** What changed from `a` to `b` that counts. `recent` is the history the caret rule looks at. */
export function significantChange(a: FrameAnalysis, b: FrameAnalysis, recent: readonly FrameAnalysis[]): Change {
  const d = diff(a, b);
  const regions: Box[] = [];
  const ignored: { box: Box; kind: IgnorableKind }[] = [];
  for (const r of d.regions) {
    const kind = ignorable(r, b, recent);
    if (kind) ignored.push({ box: r, kind });
    else regions.push(r);
  }
  const cellInside = (cell: number, box: Box) => {
    const cx = (cell % b.cellsX) * CELL;
    const cy = Math.floor(cell / b.cellsX) * CELL;
    return cx >= box.x - 3 && cy >= box.y - 3 && cx + CELL <= box.x + box.width + 3 && cy + CELL <= box.y + box.height + 3;
  };
  const cells = d.changedCells.filter((c) => !ignored.some((i) => cellInside(c, i.box)));
  // A region of two grid pixels or more counts even when no cell mean crosses the threshold.
  const changed = cells.length > 0 || regions.some((r) => r.width * r.height >= 2);
  // A slow fade moves cell means before any single pixel passes its threshold: such cells are
  // regions of their own, so whatever changed has a box to point at.
  const loose = cells
    .filter((c) => !regions.some((r) => cellInside(c, r)))
    .map((c) => ({ x: (c % b.cellsX) * CELL, y: Math.floor(c / b.cellsX) * CELL, width: CELL, height: CELL }));
  return { changed, fraction: cells.length / b.cells.length, regions: loose.length ? mergeBoxes([...regions, ...loose], 1) : regions, ignored };
}

export interface RecordedTransition extends Transition {
  fromSeq: number;
  toSeq: number;
  /** Date.now() of the settled frame it ended on. */
  settledWallAt: number;
}

export interface MovingRegion {
  box: Box;
  movingForMs: number;
}

export type WaitStatus = 'settled' | 'changed' | 'no-change' | 'not-settled';

export interface WaitResult {
  status: WaitStatus;
  waitedMs: number;
  frame: FrameAnalysis | undefined;
  movingRegion?: MovingRegion;
  transition?: Transition;
}

export interface WaitRequest {
  for: 'settled' | 'change';
  timeoutMs: number;
  /** How long the screen must be still (settled only). */
  quietMs: number;
  /** How long a settled-wait waits for the change to start. */
  changeTimeoutMs: number;
  /** The frame the observer last saw; the newest frame when the wait starts, if none. */
  since: FrameAnalysis | undefined;
}

/** A pause in motion longer than this starts a new episode (for how long something has moved). */
const EPISODE_GAP_MS = 1000;

export class Activity {
  private lastMotionAt: number | undefined;
  private motionStartedAt: number | undefined;
  private readonly motionLog: { at: number; regions: Box[] }[] = [];
  private lastSettled: FrameAnalysis | undefined;
  private anchor: FrameAnalysis | undefined;
  private readonly transitions: RecordedTransition[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<() => void>();
  /** Settles and classified transitions as they happen, for the event stream (streams/feed.ts). */
  readonly happenings = new EventEmitter<{ frame: [frame: FrameAnalysis]; settled: [frame: FrameAnalysis]; transition: [t: RecordedTransition] }>();
  private classified: { from: number; to: number; transition: Promise<Transition> } | undefined;
  /** How long each classification took to finish, slices and yields included (ms, the last 200). */
  readonly classifyMs: number[] = [];

  constructor(
    private readonly store: FrameStore,
    private readonly quietMs: number,
    /** Confirms with the device that the newest frame is the screen now (eyes.ts); false if not. */
    private readonly confirm: () => Promise<boolean> = async () => true,
    /** Gives the newest frame its fine profile, for measuring a scroll (eyes.ts); best effort. */
    private readonly profile: (f: FrameAnalysis) => Promise<void> = async () => undefined,
  ) {}

  onFrame(cur: FrameAnalysis): void {
    // The first frame is where the story starts: the first transition is measured from it.
    this.lastSettled ??= cur;
    // Motion is judged against the last frame that counted as moved, not the previous frame: a
    // spinner turning a few degrees a frame stays under every threshold frame to frame, but not
    // over three frames. Judged frame to frame, the screen would settle while the spinner spins.
    const anchor = this.anchor;
    this.anchor ??= cur;
    if (anchor) {
      let change = significantChange(anchor, cur, this.store.recent(2000));
      // Settled, and now unlike the settled frame though still like the anchor: the first frames of
      // an eased change can be too small against the anchor, and a screen that differs from the
      // one it settled on has moved (seen missed on about one switch flip in four in Chromium).
      const settled = this.lastSettled;
      if (!change.changed && settled && settled.seq !== cur.seq && (this.lastMotionAt === undefined || this.lastMotionAt <= settled.at)) {
        change = significantChange(settled, cur, this.store.recent(2000));
      }
      if (change.changed) {
        this.anchor = cur;
        // One episode of motion until it pauses for a good while: a spinner whose frames stall for a
        // moment under load has still been moving all along.
        if (this.lastMotionAt === undefined || cur.at - this.lastMotionAt > Math.max(EPISODE_GAP_MS, 4 * this.quietMs)) this.motionStartedAt = cur.at;
        this.lastMotionAt = cur.at;
        this.motionLog.push({ at: cur.at, regions: change.regions });
        while (this.motionLog.length && cur.at - this.motionLog[0]!.at > 5000) this.motionLog.shift();
      }
    }
    this.scheduleCheck();
    for (const l of this.listeners) l();
    this.happenings.emit('frame', cur);
  }

  /** Still for the quiet window now (nothing non-ignorable moved within it). */
  isStill(quietMs = this.quietMs): boolean {
    return this.lastMotionAt === undefined || performance.now() - this.lastMotionAt >= quietMs;
  }

  /** Still, and confirmed with the device since the last motion (what an answer calls settled). */
  isSettled(): boolean {
    return this.isStill() && !this.movedSinceSettle();
  }

  get lastMotion(): number | undefined {
    return this.lastMotionAt;
  }

  /** What has been moving over the last second, in points, and for how long it has moved. */
  movingRegion(): MovingRegion | undefined {
    const newest = this.store.newest();
    if (!newest || this.lastMotionAt === undefined) return undefined;
    const recent = this.motionLog.filter((m) => this.lastMotionAt! - m.at <= 1000).flatMap((m) => m.regions);
    const box = union(recent);
    if (!box) return undefined;
    return { box: toPoints(box, newest), movingForMs: Math.round(performance.now() - (this.motionStartedAt ?? this.lastMotionAt)) };
  }

  /** Transitions that ended after the given frame, oldest first. */
  transitionsAfter(seq: number): RecordedTransition[] {
    return this.transitions.filter((t) => t.toSeq > seq);
  }

  /** Calls back on every analysed frame and every settle; returns the unsubscribe function. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.listeners.clear();
    this.happenings.removeAllListeners();
  }

  private scheduleCheck(): void {
    clearTimeout(this.timer);
    const due = (this.lastMotionAt ?? performance.now()) + this.quietMs - performance.now();
    this.timer = setTimeout(() => this.check(), Math.max(0, due) + 1);
    this.timer.unref();
  }

  /** Moved since the last confirmed settle: a settle now must be confirmed with the device. */
  private movedSinceSettle(): boolean {
    return this.lastMotionAt !== undefined && this.lastMotionAt > (this.lastSettled?.at ?? -Infinity);
  }

  private check(): void {
    if (!this.isStill()) return this.scheduleCheck();
    const newest = this.store.newest();
    if (!newest || this.lastSettled?.seq === newest.seq) return;
    if (!this.movedSinceSettle()) return this.settle(newest);
    const motion = this.lastMotionAt;
    this.confirm().then(
      (still) => {
        // Frames that moved nothing (a probe's own, a clock tick) may have come meanwhile.
        if (still && this.lastMotionAt === motion && this.isStill()) this.settle(this.store.newest()!);
        else this.scheduleCheck();
      },
      () => this.scheduleCheck(),
    );
  }

  private settle(newest: FrameAnalysis): void {
    const before = this.lastSettled;
    this.lastSettled = newest;
    // Now, while it is the newest frame: it is where the next transition will be measured from.
    void this.profile(newest);
    if (before && significantChange(before, newest, this.store.recent(2000)).changed) {
      const record = { fromSeq: before.seq, toSeq: newest.seq, settledWallAt: newest.wallAt };
      this.classifyBetween(before, newest).then(
        (t) => {
          const recorded = { ...t, ...record };
          this.transitions.push(recorded);
          this.transitions.sort((x, y) => x.toSeq - y.toSeq);
          if (this.transitions.length > 100) this.transitions.shift();
          for (const l of this.listeners) l();
          this.happenings.emit('transition', recorded);
        },
        () => undefined, // a transition that cannot be classified is simply not reported
      );
    }
    for (const l of this.listeners) l();
    this.happenings.emit('settled', newest);
  }

  /**
   * The transition between two frames, from the frames kept between them. Classification takes
   * tens of milliseconds for a long scroll; it yields to the event loop every couple of
   * milliseconds (motion.ts), and the settle tracker and a wait that ends on the same frames share
   * one result.
   */
  private classifyBetween(from: FrameAnalysis, to: FrameAnalysis): Promise<Transition> {
    if (this.classified?.from === from.seq && this.classified.to === to.seq) return this.classified.transition;
    const between = this.store.range(from.seq, to.seq);
    const t0 = performance.now();
    const frames = between[0]?.seq === from.seq ? between : [from, ...between];
    const transition = Promise.all([this.profile(from), this.profile(to)]).then(async () => {
      const t = await classify(frames);
      this.classifyMs.push(performance.now() - t0);
      if (this.classifyMs.length > 200) this.classifyMs.shift();
      return t;
    });
    this.classified = { from: from.seq, to: to.seq, transition };
    return transition;
  }

  /** Waits for a change, or for a change and then stillness. */
  wait(req: WaitRequest): Promise<WaitResult> {
    const started = performance.now();
    const baseline = req.since ?? this.store.newest();
    if (baseline) void this.profile(baseline);
    const changedFromBaseline = () => {
      const newest = this.store.newest();
      if (!newest) return false;
      if (!baseline) return true; // nothing seen before, something on screen now
      return newest.seq !== baseline.seq && significantChange(baseline, newest, this.store.recent(2000)).changed;
    };
    return new Promise((resolve) => {
      let changeSeen = req.for === 'settled' && (changedFromBaseline() || !this.isStill(req.quietMs));
      let settleTimer: NodeJS.Timeout | undefined;
      let done = false;
      let confirming = false;
      const finish = (status: WaitStatus, extra: Partial<WaitResult> = {}, frame = this.store.newest()) => {
        if (done) return;
        done = true;
        clearTimeout(overall);
        clearTimeout(changeTimer);
        clearTimeout(settleTimer);
        unsubscribe();
        resolve({ status, waitedMs: Math.round(performance.now() - started), frame, ...extra });
      };
      /** Settled on this frame: the answer carries what moved since the baseline. */
      const settled = (frame: FrameAnalysis | undefined) => {
        // The verdict is in; nothing that happens while the transition is classified changes it.
        unsubscribe();
        clearTimeout(overall);
        clearTimeout(changeTimer);
        clearTimeout(settleTimer);
        if (!baseline || !frame || frame.seq === baseline.seq) return finish('settled', {}, frame);
        this.classifyBetween(baseline, frame).then(
          (t) => finish('settled', { transition: t }, frame),
          () => finish('settled', {}, frame),
        );
      };
      const evaluate = () => {
        if (req.for === 'change') {
          if (changedFromBaseline()) finish('changed');
          return;
        }
        // Motion after the wait began counts as the change even if the screen changed back.
        if (!changeSeen && (changedFromBaseline() || (this.lastMotionAt !== undefined && this.lastMotionAt >= started))) changeSeen = true;
        if (!changeSeen) return;
        const quietFor = this.lastMotionAt === undefined ? Infinity : performance.now() - this.lastMotionAt;
        if (quietFor >= req.quietMs) {
          // Quiet on the stream; the device must confirm it is not merely a stalled stream (unless a
          // settle already confirmed it after the last motion).
          if (!this.movedSinceSettle()) return settled(this.store.newest());
          if (confirming) return;
          confirming = true;
          const motion = this.lastMotionAt;
          this.confirm().then(
            (still) => {
              confirming = false;
              if (done) return;
              if (still && this.lastMotionAt === motion) {
                // Confirmed for at least the tracker's own window: the screen is settled for every
                // other asker too (a read right after this answer must not find it unsettled).
                const newest = this.store.newest();
                if (newest && req.quietMs >= this.quietMs && this.lastSettled?.seq !== newest.seq) this.settle(newest);
                settled(newest);
              } else evaluate();
            },
            () => {
              confirming = false;
              if (!done) settled(this.store.newest());
            },
          );
        } else {
          clearTimeout(settleTimer);
          settleTimer = setTimeout(evaluate, req.quietMs - quietFor + 1);
        }
      };
      const unsubscribe = this.subscribe(evaluate);
      const overall = setTimeout(() => {
        if (req.for === 'change' || !changeSeen) return finish('no-change');
        const moving = this.movingRegion();
        finish('not-settled', moving ? { movingRegion: moving } : {});
      }, req.timeoutMs);
      const changeTimer =
        req.for === 'settled'
          ? setTimeout(
              () => {
                if (!changeSeen) finish('no-change');
              },
              Math.min(req.changeTimeoutMs, req.timeoutMs),
            )
          : undefined;
      evaluate();
    });
  }
}
