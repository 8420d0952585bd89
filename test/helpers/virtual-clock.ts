// A clock that moves only when a test moves it (workers/clock.ts). Timers fire in due order as
// `advance` passes their instant; between two timers the test's own asynchronous work (frames
// decoded on libvips' threads, a probe in flight) is let finish through `settle`, so what a timer
// starts has happened before the next one fires, as it would have in real time.
import type { Cancel, Clock } from '../../workers/clock.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class VirtualClock implements Clock {
  private t: number;
  private readonly wallOrigin: number;
  private readonly timers: Pending[] = [];
  private seq = 0;

  /** `settle` is awaited after every timer fires and at the end of every advance. */
  constructor(
    private settle: () => Promise<unknown> = async () => undefined,
    start = 1_000,
  ) {
    this.t = start;
    this.wallOrigin = 1_800_000_000_000 - start;
  }

  /** What the clock waits for between timers (for example a device's eyes becoming idle). */
  settleWith(settle: () => Promise<unknown>): void {
    this.settle = settle;
  }

  now(): number {
    return this.t;
  }

  wall(): number {
    return this.wallOrigin + this.t;
  }

  timeout(fn: () => void, ms: number): Cancel {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(p);
    return () => {
      const i = this.timers.indexOf(p);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time on by `ms`, firing every timer due on the way in order, and letting each one's work finish. */
  async advance(ms: number): Promise<void> {
    const until = this.t + ms;
    await this.drain();
    for (;;) {
      const next = this.nextDue(until);
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.t = next.at;
      next.fn();
      await this.drain();
    }
    this.t = until;
    await this.drain();
  }

  /** Moves time on to the next timer and fires it; false when no timer is pending. */
  async next(): Promise<boolean> {
    const due = this.nextDue(Infinity);
    if (!due) return false;
    await this.advance(due.at - this.t);
    return true;
  }

  /**
   * Runs time on, timer by timer, until `p` settles: its outcome and the virtual time it took.
   * Fails when `p` is still pending and no timer is left to fire (it waits on something else).
   */
  async until<T>(p: Promise<T>): Promise<{ value: T; tookMs: number } | { error: unknown; tookMs: number }> {
    const t0 = this.t;
    let out: { value: T } | { error: unknown } | undefined;
    p.then(
      (value) => (out = { value }),
      (error: unknown) => (out = { error }),
    );
    await this.drain();
    while (!out) if (!(await this.next())) throw new Error(`still pending at +${this.t - t0} ms with no timer left to fire`);
    return { ...out, tookMs: this.t - t0 };
  }

  private nextDue(until: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.timers) if (p.at <= until && (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq))) best = p;
    return best;
  }

  /** Lets promise chains and the test's asynchronous work run to rest, without moving time. */
  private async drain(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setImmediate(r));
      await this.settle();
    }
  }
}
