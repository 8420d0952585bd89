// What this worker remembers of one app for one team: the screens seen (identity, with several
// fingerprints each), for each the last reading taken on a settled screen and the pixels it was
// read from (so a later visit can be answered without reading the tree), the transition graph,
// and the escalations raised. Learned only from settled frames: a half-drawn screen teaches nothing.
import type { FrameAnalysis } from '../perception/analysis.js';
import { significantChange } from '../perception/settle.js';
import { ScreenBook } from '../understanding/identity.js';
import type { ScreenReading } from '../understanding/screen.js';
import { ConfirmThrottle } from './confirm-throttle.js';
import { TransitionGraph, type Edge } from './graph.js';
import type { MemoryKey, MemorySync } from './sync.js';
import { vocabularyOf } from './vocabulary.js';

export interface Remembered {
  reading: ScreenReading;
  /** The settled frame the reading was taken on. */
  signature: FrameAnalysis;
  confirmedAt: number;
}

export type EscalationReason = 'unknown-screen' | 'unresolved-intent' | 'unexpected-outcome' | 'unfamiliar-modal' | 'uncovered-goal';

export interface Escalation {
  reason: EscalationReason;
  screen: string;
  evidence: Record<string, unknown>;
  costMs: number;
  at: number;
}

const MAX_ESCALATIONS = 500;
/** Faces kept per screen node. */
const MAX_FACES = 8;

export class AppMemory {
  /** Loaded from the farm (or there is no farm to load from): set once the load succeeded. */
  loaded = false;
  /** The farm's generation of this app's memory when loaded: bumped when an admin forgets it. */
  generation = 0;
  loadRetryAt = 0;
  loading: Promise<void> | undefined;
  /** Set when the farm forgot this app: a read made with this copy must not be served again. */
  forgotten = false;

  constructor(
    readonly key: MemoryKey,
    /** Where what is learned is written behind; none in tests without a gateway. */
    private readonly sync?: MemorySync,
  ) {}

  readonly book = new ScreenBook();
  readonly graph = new TransitionGraph();
  readonly escalations: Escalation[] = [];
  /** Per screen node, its faces: one screen looks several ways (a switch on or off, a row loaded). */
  private readonly seen = new Map<string, Remembered[]>();
  /** Modal layers seen on each screen (by role and name): a new one is unfamiliar. */
  private readonly modals = new Set<string>();
  /** When each screen was last written or confirmed to the farm from this worker. */
  private readonly confirmations = new ConfirmThrottle();

  /** How much this copy holds, for the worker's heartbeat. */
  held(): { screens: number; faces: number; edges: number; escalations: number } {
    let faces = 0;
    for (const f of this.seen.values()) faces += f.length;
    return { screens: this.book.size, faces, edges: this.graph.size, escalations: this.escalations.length };
  }

  remember(node: string, reading: ScreenReading, settled: FrameAnalysis): void {
    // A face keeps the grid the pixel check compares, not the fine profile a settled frame may carry
    // for measuring scrolls (twice the grid's bytes, on up to eight faces of every screen).
    const { fine: _measuring, ...signature } = settled;
    const now = Date.now();
    const faces = (this.seen.get(node) ?? []).filter((f) => !samePixels(f.signature, signature));
    faces.push({ reading, signature, confirmedAt: now });
    if (faces.length > MAX_FACES) faces.shift(); // the least recently confirmed goes
    this.seen.set(node, faces);
    if (reading.regions.modal) this.modals.add(modalKey(reading));
    const n = this.book.node(node);
    if (!n || !this.sync) return;
    this.sync.screen(this.key, this.generation, {
      id: n.id,
      name: n.name,
      fingerprints: n.fingerprints.map((f) => ({ hash: f.hash, title: f.title, tokens: f.tokens })),
      readings: n.readings,
      vocabulary: vocabularyOf(reading),
      confirmedAt: new Date(now).toISOString(),
    });
    this.confirmations.note(node, now);
  }

  /**
   * A known screen recognised again (a warm read, or a tree read that found it). Written behind at
   * most once a minute per screen; with the vocabulary when the recognition rests on a settled reading
   * (a warm read's matched face), without when it does not (a tree read taken while something moved).
   */
  confirm(node: string, settled?: ScreenReading): void {
    if (!this.sync || !this.book.node(node)) return;
    const now = Date.now();
    if (!this.confirmations.take(node, now)) return;
    this.sync.confirmation(this.key, this.generation, {
      id: node,
      confirmedAt: new Date(now).toISOString(),
      ...(settled ? { vocabulary: vocabularyOf(settled) } : {}),
    });
  }

  /** One more traversal of an edge: into the graph, and written behind as an increment. */
  recordEdge(from: string, action: string, to: string, o: { durationMs: number; kind: string | null; verified: boolean }): Edge {
    const e = this.graph.record(from, action, to, o);
    this.sync?.edge(this.key, this.generation, {
      from,
      action,
      to,
      count: 1,
      verified: o.verified ? 1 : 0,
      durations: [Math.round(o.durationMs)],
      kinds: o.kind ? { [o.kind]: 1 } : {},
    });
    return e;
  }

  recall(node: string): Remembered | undefined {
    return this.seen.get(node)?.at(-1);
  }

  /**
   * The remembered screen whose pixels the settled frame matches, trying `first` before the rest
   * (a prediction); undefined when none agrees. This is the cheap check a warm read rests on.
   */
  matchPixels(frame: FrameAnalysis, first: string[] = []): { node: string; remembered: Remembered } | undefined {
    const order = [...new Set([...first, ...this.seen.keys()])];
    for (const node of order) {
      for (const r of this.seen.get(node) ?? []) {
        if (samePixels(r.signature, frame)) {
          r.confirmedAt = Date.now();
          return { node, remembered: r };
        }
      }
    }
    return undefined;
  }

  /**
   * A modal read from the tree is known by its role and label from then on, settled or not: the
   * label is the tree's, not a half-drawn face, and the caller was told of it once (escalated).
   */
  noteModal(reading: ScreenReading): void {
    if (reading.regions.modal) this.modals.add(modalKey(reading));
  }

  familiarModal(reading: ScreenReading): boolean {
    return !reading.regions.modal || this.modals.has(modalKey(reading));
  }

  escalate(e: Omit<Escalation, 'at'>): Escalation {
    const full = { ...e, at: Date.now() };
    this.escalations.push(full);
    if (this.escalations.length > MAX_ESCALATIONS) this.escalations.shift();
    this.sync?.escalation(this.key, this.generation, {
      reason: e.reason,
      screen: e.screen,
      evidence: e.evidence,
      costMs: e.costMs,
      at: new Date(full.at).toISOString(),
    });
    return full;
  }
}

/** Nothing on screen differs beyond what the perception rules ignore (a status clock ticking). */
function samePixels(a: FrameAnalysis, b: FrameAnalysis): boolean {
  return a.gridW === b.gridW && a.gridH === b.gridH && !significantChange(a, b, []).changed;
}

function modalKey(r: ScreenReading): string {
  return `${r.regions.modal!.role}:${r.regions.modal!.label.toLowerCase()}`;
}

/**
 * The band of versions that share a memory: the major version ("3" for 3.2.1; "0.9" before 1.0,
 * where minor versions break things), or "any" when the platform gives none (web pages).
 */
export function versionBand(version: string | null | undefined): string {
  const m = version?.trim().match(/^v?(\d+)(?:\.(\d+))?/i);
  if (!m) return 'any';
  return m[1] === '0' && m[2] !== undefined ? `0.${m[2]}` : m[1]!;
}

/** A load that failed is tried again after this long (the gateway or Postgres was away). */
const LOAD_RETRY_MS = 10_000;

/** One app's memory per team, platform and app id: what agents of one team learn, they share. */
export class Memories {
  private readonly apps = new Map<string, AppMemory>();

  constructor(private readonly sync?: MemorySync) {
    // An app the farm forgot: this host's copy goes too, and the next use loads it afresh.
    if (sync) {
      sync.onForgotten = (key, generation) => {
        const k = `${key.team}\u0000${key.platform}\u0000${key.app}`;
        const m = this.apps.get(k);
        if (m && m.generation <= generation) {
          m.forgotten = true;
          this.apps.delete(k);
        }
      };
    }
  }

  /** What the cached memories hold, summed, for the worker's heartbeat. */
  held(): { appMemories: number; screens: number; faces: number; edges: number; escalations: number } {
    const sum = { appMemories: this.apps.size, screens: 0, faces: 0, edges: 0, escalations: 0 };
    for (const m of this.apps.values()) {
      const h = m.held();
      sum.screens += h.screens;
      sum.faces += h.faces;
      sum.edges += h.edges;
      sum.escalations += h.escalations;
    }
    return sum;
  }

  of(team: string, platform: 'web' | 'android' | 'ios', app: string): AppMemory {
    const k = `${team}\u0000${platform}\u0000${app}`;
    let m = this.apps.get(k);
    if (!m) this.apps.set(k, (m = new AppMemory({ team, platform, app: app.slice(0, 600) }, this.sync)));
    if (!this.sync) m.loaded = true;
    return m;
  }

  /**
   * The app's memory, with what the farm remembers of it loaded the first time (screens and the
   * graph other hosts learned). A failed load is not fatal: the worker works from what it has and
   * tries again later.
   */
  async ensure(team: string, platform: 'web' | 'android' | 'ios', app: string): Promise<AppMemory> {
    const m = this.of(team, platform, app);
    if (m.loaded || !this.sync || Date.now() < m.loadRetryAt) return m;
    m.loading ??= this.sync
      .load(m.key)
      .then(
        ({ screens, edges, generation }) => {
          m.generation = generation;
          for (const s of screens)
            m.book.restore({
              id: s.id,
              name: s.name,
              fingerprints: s.fingerprints.map((f) => ({ hash: f.hash, title: f.title ?? null, tokens: f.tokens })),
              readings: s.readings,
            });
          for (const e of edges) m.graph.restore(e);
          m.loaded = true;
        },
        () => {
          m.loadRetryAt = Date.now() + LOAD_RETRY_MS;
          this.sync!.counts.loadFailed++;
        },
      )
      .finally(() => (m.loading = undefined));
    await m.loading;
    return m;
  }
}
