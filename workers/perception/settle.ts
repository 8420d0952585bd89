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
import { type Cancel, type Clock, systemClock } from '../clock.js';
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
  private cancelCheck: Cancel | undefined;
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
    private readonly clock: Clock = systemClock,
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
    return this.lastMotionAt === undefined || this.clock.now() - this.lastMotionAt >= quietMs;
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
    return { box: toPoints(box, newest), movingForMs: Math.round(this.clock.now() - (this.motionStartedAt ?? this.lastMotionAt)) };
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
    this.cancelCheck?.();
    this.listeners.clear();
    this.happenings.removeAllListeners();
  }

  private scheduleCheck(): void {
    this.cancelCheck?.();
    const now = this.clock.now();
    const due = (this.lastMotionAt ?? now) + this.quietMs - now;
    this.cancelCheck = this.clock.timeout(() => this.check(), Math.max(0, due) + 1);
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
    return new SettleWait(this, this.clock, req).run();
  }

  /** The frame the last settle was confirmed on. */
  get settledFrame(): FrameAnalysis | undefined {
    return this.lastSettled;
  }

  /** For a wait: settle on this frame now, confirmed by the caller, so every other asker sees it settled. */
  settleConfirmed(frame: FrameAnalysis): void {
    if (this.lastSettled?.seq !== frame.seq) this.settle(frame);
  }

  /** For a wait: whether the screen moved since the last confirmed settle, so stillness needs the device's word. */
  needsConfirmation(): boolean {
    return this.movedSinceSettle();
  }

  /** For a wait: the device's word that the newest frame is the screen now. */
  confirmWithDevice(): Promise<boolean> {
    return this.confirm();
  }

  /** For a wait: the transition between two frames (shared with the tracker's own). */
  transitionBetween(from: FrameAnalysis, to: FrameAnalysis): Promise<Transition> {
    return this.classifyBetween(from, to);
  }

  get newest(): FrameAnalysis | undefined {
    return this.store.newest();
  }

  changedSince(baseline: FrameAnalysis, frame: FrameAnalysis): boolean {
    return frame.seq !== baseline.seq && significantChange(baseline, frame, this.store.recent(2000)).changed;
  }

  /** The classification in flight or last made, for a virtual clock's settling. */
  get classifying(): Promise<unknown> {
    return this.classified?.transition.catch(() => undefined) ?? Promise.resolve();
  }

  get trackerQuietMs(): number {
    return this.quietMs;
  }

  profileFrame(f: FrameAnalysis): void {
    void this.profile(f);
  }
}

/**
 * One wait on the activity tracker, in three phases: until the change begins (or no change within
 * its time), until the screen has been quiet for the window, then the device's confirmation that
 * the stream did not merely stall. Each phase has at most one timer, and the wait as a whole has
 * its overall timeout.
 */
class SettleWait {
  private readonly started: number;
  private readonly baseline: FrameAnalysis | undefined;
  private changeSeen: boolean;
  private confirming = false;
  private done = false;
  private readonly timers: Cancel[] = [];
  private cancelQuiet: Cancel | undefined;
  private unsubscribe: () => void = () => undefined;
  private resolve: (r: WaitResult) => void = () => undefined;

  constructor(
    private readonly activity: Activity,
    private readonly clock: Clock,
    private readonly req: WaitRequest,
  ) {
    this.started = clock.now();
    this.baseline = req.since ?? activity.newest;
    if (this.baseline) activity.profileFrame(this.baseline);
    this.changeSeen = req.for === 'settled' && (this.changedFromBaseline() || !activity.isStill(req.quietMs));
  }

  run(): Promise<WaitResult> {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.unsubscribe = this.activity.subscribe(() => this.evaluate());
      this.timers.push(this.clock.timeout(() => this.timedOut(), this.req.timeoutMs));
      if (this.req.for === 'settled') {
        this.timers.push(
          this.clock.timeout(
            () => {
              if (!this.changeSeen) this.finish('no-change');
            },
            Math.min(this.req.changeTimeoutMs, this.req.timeoutMs),
          ),
        );
      }
      this.evaluate();
    });
  }

  private changedFromBaseline(): boolean {
    const newest = this.activity.newest;
    if (!newest) return false;
    if (!this.baseline) return true; // nothing seen before, something on screen now
    return this.activity.changedSince(this.baseline, newest);
  }

  private evaluate(): void {
    if (this.done) return;
    if (this.req.for === 'change') {
      if (this.changedFromBaseline()) this.finish('changed');
      return;
    }
    // Motion after the wait began counts as the change even if the screen changed back.
    const lastMotion = this.activity.lastMotion;
    if (!this.changeSeen && (this.changedFromBaseline() || (lastMotion !== undefined && lastMotion >= this.started))) this.changeSeen = true;
    if (!this.changeSeen) return;
    const quietFor = lastMotion === undefined ? Infinity : this.clock.now() - lastMotion;
    if (quietFor < this.req.quietMs) {
      this.cancelQuiet?.();
      this.cancelQuiet = this.clock.timeout(() => this.evaluate(), this.req.quietMs - quietFor + 1);
      return;
    }
    // Quiet on the stream; the device must confirm it is not merely a stalled stream (unless a
    // settle already confirmed it after the last motion).
    if (!this.activity.needsConfirmation()) return this.settled(this.activity.newest);
    this.confirm(lastMotion);
  }

  private confirm(motion: number | undefined): void {
    if (this.confirming) return;
    this.confirming = true;
    this.activity.confirmWithDevice().then(
      (still) => {
        this.confirming = false;
        if (this.done) return;
        if (!still || this.activity.lastMotion !== motion) return this.evaluate();
        // Confirmed for at least the tracker's own window: the screen is settled for every other
        // asker too (a read right after this answer must not find it unsettled).
        const newest = this.activity.newest;
        if (newest && this.req.quietMs >= this.activity.trackerQuietMs) this.activity.settleConfirmed(newest);
        this.settled(newest);
      },
      () => {
        this.confirming = false;
        if (!this.done) this.settled(this.activity.newest);
      },
    );
  }

  private timedOut(): void {
    if (this.req.for === 'change' || !this.changeSeen) return this.finish('no-change');
    const moving = this.activity.movingRegion();
    this.finish('not-settled', moving ? { movingRegion: moving } : {});
  }

  /** Settled on this frame: the answer carries what moved since the baseline. */
  private settled(frame: FrameAnalysis | undefined): void {
    // The verdict is in; nothing that happens while the transition is classified changes it.
    this.stopListening();
    const baseline = this.baseline;
    if (!baseline || !frame || frame.seq === baseline.seq) return this.finish('settled', {}, frame);
    this.activity.transitionBetween(baseline, frame).then(
      (t) => this.finish('settled', { transition: t }, frame),
      () => this.finish('settled', {}, frame),
    );
  }

  private stopListening(): void {
    this.unsubscribe();
    for (const cancel of this.timers.splice(0)) cancel();
    this.cancelQuiet?.();
  }

  private finish(status: WaitStatus, extra: Partial<WaitResult> = {}, frame = this.activity.newest): void {
    if (this.done) return;
    this.done = true;
    this.stopListening();
    this.resolve({ status, waitedMs: Math.round(this.clock.now() - this.started), frame, ...extra });
  }
}
