// Cycles for the soak: every so often the agents stop at a barrier, each having done what the
// cycle asks, and the soak measures Chromium while no agent acts; then they go on.
//  - relaunch: each agent relaunches its app (a fresh page in the same session). Renderer memory
//    measured then holds no page state and no garbage: if it still climbs from cycle to cycle, the
//    renderers keep something of their own.
//  - round: each agent releases its session; once every device is reset, the soak measures, then
//    starts a new round of sessions. A farm runs for days while sessions come and go: what
//    Chromium's long-lived processes (the browser, the GPU process) hold between rounds must not
//    climb from round to round.

export type CycleKind = 'relaunch' | 'round';

export class Cycles {
  /** The cycle agents are to be in; an agent behind it does what `kind` asks and waits at the barrier. */
  current = 0;
  kind: CycleKind = 'relaunch';
  private arrived = 0;
  private release: () => void = () => undefined;
  private released: Promise<void> = Promise.resolve();

  constructor(private readonly agents: number) {}

  begin(kind: CycleKind): void {
    this.kind = kind;
    this.current++;
    this.arrived = 0;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** An agent has done its part; resolves when the cycle has been measured. */
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

/**
 * Both schedules merged, in order. Where a relaunch and a round fall together, the round: it gives
 * every device a fresh page too.
 */
export function schedule(durationMs: number, relaunchEveryMs?: number, roundEveryMs?: number): { at: number; kind: CycleKind }[] {
  const rounds = roundEveryMs ? cycleTimes(durationMs, roundEveryMs) : [];
  const relaunches = relaunchEveryMs ? cycleTimes(durationMs, relaunchEveryMs).filter((at) => !rounds.includes(at)) : [];
  return [...rounds.map((at) => ({ at, kind: 'round' as const })), ...relaunches.map((at) => ({ at, kind: 'relaunch' as const }))].sort((a, b) => a.at - b.at);
}
