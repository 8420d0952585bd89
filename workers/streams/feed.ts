// A leased device's event log: what its eyes and hands saw, as typed events numbered from 1 for
// each lease, kept for a while so a subscriber that reconnects gets what it missed. The log is
// written whether or not anyone listens (it is cheap: a few events a second at most); the gateway
// reads it with a long poll while it has watchers. Events are recorded only while a session holds
// the device, and a new lease starts a new log: one session never sees another's screens.
import type { components } from '../../openapi/generated/types.js';
import { toPoints, type FrameAnalysis } from '../perception/analysis.js';
import type { Eyes } from '../perception/eyes.js';
import { MAX_REGIONS } from '../perception/eyes.js';
import { transitionJson } from '../perception/service.js';
import { significantChange, type RecordedTransition } from '../perception/settle.js';

type Schemas = components['schemas'];
export type DeviceEvent = Schemas['DeviceEvent'];
type Draft<E> = E extends unknown ? Omit<E, 'seq' | 'at'> : never;

export interface FeedOptions {
  /** Events kept per lease, at most. */
  maxEvents: number;
  /** And for at most this long. */
  maxAgeMs: number;
  /**
   * Frame-changes are sent at once, then at most one per this interval while the screen keeps
   * moving: an animation at 60 fps would otherwise be sixty events a second that say "still moving".
   */
  frameChangeIntervalMs: number;
}

export const FEED_DEFAULTS: FeedOptions = { maxEvents: 2000, maxAgeMs: 5 * 60_000, frameChangeIntervalMs: 100 };

/** The lease the device is under now, if any. */
export type LeaseOf = () => { epoch: number } | null;

const iso = (ms: number) => new Date(ms).toISOString();
const stamp = (f: FrameAnalysis) => ({ seq: f.seq, at: iso(f.wallAt) });

export class DeviceFeed {
  private epoch: number | undefined;
  private kept: { event: DeviceEvent; wallAt: number }[] = [];
  private last = 0;
  private readonly waiters = new Set<() => void>();
  /** The frame the last frame-change showed: the next one is measured against it. */
  private shown: FrameAnalysis | undefined;
  private lastChangeAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastScreen: string | undefined;
  private lastSettledSeq: number | undefined;
  private readonly off: (() => void)[] = [];

  /** Events kept for watchers that resume. */
  get size(): number {
    return this.kept.length;
  }

  constructor(
    private readonly eyes: Eyes,
    private readonly leaseOf: LeaseOf,
    private readonly opts: FeedOptions = FEED_DEFAULTS,
  ) {
    const h = eyes.activity.happenings;
    const on = <K extends 'frame' | 'settled' | 'transition'>(name: K, fn: (x: K extends 'transition' ? RecordedTransition : FrameAnalysis) => void) => {
      h.on(name, fn as never);
      this.off.push(() => h.off(name, fn as never));
    };
    on('frame', (f) => this.onFrame(f as FrameAnalysis));
    on('settled', (f) => {
      // The tracker and a wait that ends on the same frame may both call it settled: one event.
      const frame = f as FrameAnalysis;
      if (frame.seq === this.lastSettledSeq) return;
      this.lastSettledSeq = frame.seq;
      this.flushChange();
      this.record({ type: 'settled', frame: stamp(frame) });
    });
    on('transition', (t) => {
      const r = t as RecordedTransition;
      this.record({ type: 'motion', from: r.fromSeq, to: r.toSeq, transition: transitionJson(r) });
    });
  }

  close(): void {
    clearTimeout(this.timer);
    for (const off of this.off) off();
    for (const w of this.waiters) w();
  }

  /** The screen a read found; recorded when it is not the one this lease's log last named. */
  noteScreen(epoch: number, screen: Schemas['ScreenIdentity'], source: 'tree' | 'memory', elements: number): void {
    if (!this.current(epoch) || screen.id === this.lastScreen) return;
    this.lastScreen = screen.id;
    this.record({ type: 'screen', screen, source, elements });
  }

  /** An action carried out under this lease: its verdict, and an escalation when it raised one. */
  noteAction(epoch: number, r: Schemas['ActionResult']): void {
    if (!this.current(epoch)) return;
    this.flushChange();
    const target = r.target ? (r.target.label ?? r.target.role) : null;
    this.record({
      type: 'action',
      action: r.action,
      target,
      verdict: r.verdict,
      reason: r.reason,
      before: r.evidence.before,
      after: r.evidence.after,
      changed: r.evidence.changed,
      ...(r.transition ? { transition: r.transition.kind } : {}),
      totalMs: r.timings.totalMs,
    });
    if (r.escalation) this.noteEscalation(epoch, { ...r.escalation, action: r.action });
  }

  /** An escalation: simfleet could not vouch for what it saw (or could not resolve what was meant). */
  noteEscalation(epoch: number, e: Omit<Schemas['EscalationEvent'], 'type' | 'seq' | 'at'>): void {
    if (!this.current(epoch)) return;
    this.record({ type: 'escalation', reason: e.reason, screen: e.screen, action: e.action, costMs: e.costMs });
  }

  /**
   * The events after `after`, oldest first: at once when there are any, else at the first new one
   * or after waitMs. A call under another epoch than the log's starts the log for that lease.
   */
  async read(epoch: number, after: number, waitMs: number, max: number): Promise<Schemas['DeviceEvents']> {
    this.current(epoch);
    if (after >= this.last && waitMs > 0) await this.nextEvent(waitMs);
    this.trim();
    const events = this.kept
      .filter((k) => k.event.seq > after)
      .slice(0, max)
      .map((k) => k.event);
    return { events, oldest: this.kept[0]?.event.seq ?? this.last + 1, last: this.last };
  }

  private onFrame(f: FrameAnalysis): void {
    if (!this.shown || !this.leaseOf()) {
      this.shown = f; // the baseline follows the screen while no one holds the device
      return;
    }
    if (this.timer) return; // a flush is due; it will see this frame
    const due = this.lastChangeAt + this.opts.frameChangeIntervalMs - performance.now();
    if (due <= 0) return this.flushChange();
    this.timer = setTimeout(() => this.flushChange(), due);
  }

  /** Records a frame-change if the newest frame differs from the one last shown. */
  private flushChange(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const newest = this.eyes.store.newest();
    const shown = this.shown;
    if (!newest || !shown || newest.seq === shown.seq) return;
    const change = significantChange(shown, newest, this.eyes.store.recent(2000));
    if (!change.changed) return;
    this.shown = newest;
    this.lastChangeAt = performance.now();
    const regions = [...change.regions]
      .sort((a, b) => b.width * b.height - a.width * a.height)
      .slice(0, MAX_REGIONS)
      .map((b) => toPoints(b, newest));
    this.record({ type: 'frame-change', frame: stamp(newest), since: shown.seq, fraction: Math.round(change.fraction * 1000) / 1000, regions, coalesced: 1 });
  }

  /** True when the device is held under this epoch; a newer epoch starts a new log. */
  private current(epoch: number): boolean {
    const lease = this.leaseOf();
    if (!lease || lease.epoch !== epoch) return false;
    if (this.epoch !== epoch) {
      this.epoch = epoch;
      this.kept = [];
      this.last = 0;
      this.lastScreen = undefined;
    }
    return true;
  }

  private record(draft: Draft<DeviceEvent>): void {
    const lease = this.leaseOf();
    if (!lease || !this.current(lease.epoch)) return;
    const now = Date.now();
    this.kept.push({ event: { ...draft, seq: ++this.last, at: iso(now) } as DeviceEvent, wallAt: now });
    this.trim();
    for (const w of [...this.waiters]) w();
  }

  private trim(): void {
    const cutoff = Date.now() - this.opts.maxAgeMs;
    let drop = Math.max(0, this.kept.length - this.opts.maxEvents);
    while (drop < this.kept.length && this.kept[drop]!.wallAt < cutoff) drop++;
    if (drop > 0) this.kept = this.kept.slice(drop);
  }

  private nextEvent(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.waiters.add(done);
    });
  }
}
