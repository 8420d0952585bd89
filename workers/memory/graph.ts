// The transition graph of one app: from a screen, an action on a target, to a screen — with how
// often, how often verified, how long it took and what motion was seen. Before an action with a
// known edge it predicts where the action leads; after settling the verdict compares.

export interface Edge {
  from: string;
  /** The action and the identity of its target: "tap button Settings", "tap #link-privacy". */
  action: string;
  to: string;
  count: number;
  verified: number;
  /** Durations (ms) of the last few, action start to settle; the median is the typical one. */
  durations: number[];
  kinds: Record<string, number>;
  lastAt: number;
}

const KEEP_DURATIONS = 16;

/**
 * Edges a worker keeps per app, the least recently travelled dropped first. An app whose targets
 * carry content (a message list, a feed) makes new edges for as long as it is driven, and every
 * prediction scans them; Postgres keeps what a worker drops.
 */
export const MAX_EDGES = 5000;

export class TransitionGraph {
  /** In order of last use: the first is the least recently travelled. */
  private readonly edges = new Map<string, Edge>();

  constructor(private readonly maxEdges = MAX_EDGES) {}

  /** The most travelled destination of this action from this screen, when there is one. */
  predict(from: string, action: string): { to: string; count: number; verified: number } | null {
    let best: Edge | undefined;
    for (const e of this.edges.values()) if (e.from === from && e.action === action && (!best || e.count > best.count)) best = e;
    return best ? { to: best.to, count: best.count, verified: best.verified } : null;
  }

  record(from: string, action: string, to: string, o: { durationMs: number; kind: string | null; verified: boolean; at?: number }): Edge {
    const key = `${from}\u0000${action}\u0000${to}`;
    const e = this.edges.get(key) ?? { from, action, to, count: 0, verified: 0, durations: [], kinds: {}, lastAt: 0 };
    e.count++;
    if (o.verified) e.verified++;
    e.durations.push(Math.round(o.durationMs));
    if (e.durations.length > KEEP_DURATIONS) e.durations.shift();
    if (o.kind) e.kinds[o.kind] = (e.kinds[o.kind] ?? 0) + 1;
    e.lastAt = o.at ?? Date.now();
    this.keep(key, e);
    return e;
  }

  private keep(key: string, e: Edge): void {
    this.edges.delete(key);
    this.edges.set(key, e);
    while (this.edges.size > this.maxEdges) this.edges.delete(this.edges.keys().next().value!);
  }

  /** An edge the farm remembers, with its absolute counts (loaded from Postgres). */
  restore(e: Omit<Edge, 'lastAt'>): void {
    const key = `${e.from}\u0000${e.action}\u0000${e.to}`;
    const have = this.edges.get(key);
    if (have && have.count >= e.count) return;
    this.keep(key, { ...e, durations: [...e.durations], kinds: { ...e.kinds }, lastAt: Date.now() });
  }

  /** Edges leaving a screen, most travelled first. */
  exits(from: string): Edge[] {
    return [...this.edges.values()].filter((e) => e.from === from).sort((a, b) => b.verified - a.verified || b.count - a.count);
  }

  get size(): number {
    return this.edges.size;
  }

  all(): Edge[] {
    return [...this.edges.values()];
  }
}

/** A tap in the graph: on the target's stable id, or on its role and label. */
export function tapKey(target: { id: string | null; role: string; label: string }): string {
  return `tap ${target.id ? `#${target.id}` : `${target.role} ${JSON.stringify(target.label)}`}`;
}

export function typicalMs(e: Edge): number | null {
  if (!e.durations.length) return null;
  const s = [...e.durations].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}
