// Page loads on one host, a few at a time. Twenty pages loading at once on a starved host (a cgroup
// of 0.8 of a core) all missed their 30 s load together: at boot every device stayed broken, and when
// twenty agents relaunched their apps in the same minute most relaunches failed. One after another,
// a few at a time, each load gets enough of the host to finish.

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
