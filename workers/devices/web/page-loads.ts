// Loads of fresh pages on one host (a device's boot, reset or session start), a few at a time.
// Twenty pages loading at once on a starved host (a cgroup of 0.8 of a core) all missed their 30 s
// load together and every device stayed broken. A few at a time, each load gets enough of the host
// to finish. Navigations inside a session (an action's relaunch or open) do not queue here: they
// have an action's 45 s, and twenty relaunches in line behind each other ran past it.

/** Loads at once: enough to start a host quickly, few enough not to starve each other. */
export const PAGE_LOADS_AT_ONCE = 4;

export class PageLoads {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  /** The most loads that ever ran at once (a test reads it). */
  peak = 0;

  constructor(private readonly atOnce: number = PAGE_LOADS_AT_ONCE) {}

  /** Runs one load when its turn comes; its own timeout starts then, not while it waits. */
  async run<T>(load: () => Promise<T>): Promise<T> {
    await this.turn();
    try {
      return await load();
    } finally {
      this.release();
    }
  }

  /** Loads waiting for a turn. */
  get waiting(): number {
    return this.queue.length;
  }

  private turn(): Promise<void> {
    if (this.running < this.atOnce) {
      this.running++;
      this.peak = Math.max(this.peak, this.running);
      return Promise.resolve();
    }
    // The slot passes straight from release() to the next in line: running stays counted.
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }
}
