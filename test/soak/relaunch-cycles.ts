// Relaunch cycles for the soak: every so often every agent relaunches its app (a fresh page in the
// same session) and waits; once all have, the soak has every page collect its garbage and measures
// Chromium, and the agents go on. Renderer memory measured this way holds no page state and no
// garbage, so if it still climbs from cycle to cycle the renderers keep something of their own.

export class RelaunchCycles {
  /** The cycle agents are to be in; an agent behind it relaunches and waits at the barrier. */
  current = 0;
  private arrived = 0;
  private release: () => void = () => undefined;
  private released: Promise<void> = Promise.resolve();

  constructor(private readonly agents: number) {}

  begin(): void {
    this.current++;
    this.arrived = 0;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** An agent has relaunched; resolves when the cycle has been measured. */
  arrive(): Promise<void> {
    this.arrived++;
    return this.released;
  }

  /**
   * How many agents arrived, once all have or the limit passed: an agent whose session ended, or
   * whose relaunch hangs, must not hold the others for ever; the row says how many it counted.
   */
  async waitForAgents(limitMs: number): Promise<number> {
    const until = Date.now() + limitMs;
    while (this.arrived < this.agents && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    return this.arrived;
  }

  end(): void {
    this.release();
  }
}

/** When a soak of this length measures, cycle by cycle: none so late that the agents could not all be back. */
export function cycleTimes(durationMs: number, everyMs: number): number[] {
  const margin = Math.min(30_000, everyMs / 2);
  const times: number[] = [];
  for (let at = everyMs; at <= durationMs - margin; at += everyMs) times.push(at);
  return times;
}
