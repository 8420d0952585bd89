// What this worker remembers of one app for one team: the screens seen (identity, with several
// fingerprints each), for each the last reading taken on a settled screen and the pixels it was
// read from (so a later visit can be answered without reading the tree), the transition graph,
// and the escalations raised. Learned only from settled frames: a half-drawn screen teaches nothing.
import type { FrameAnalysis } from '../perception/analysis.js';
import { significantChange } from '../perception/settle.js';
import { ScreenBook } from '../understanding/identity.js';
import type { ScreenReading } from '../understanding/screen.js';
import { TransitionGraph } from './graph.js';

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
  readonly book = new ScreenBook();
  readonly graph = new TransitionGraph();
  readonly escalations: Escalation[] = [];
  /** Per screen node, its faces: one screen looks several ways (a switch on or off, a row loaded). */
  private readonly seen = new Map<string, Remembered[]>();
  /** Modal layers seen on each screen (by role and name): a new one is unfamiliar. */
  private readonly modals = new Set<string>();

  remember(node: string, reading: ScreenReading, signature: FrameAnalysis): void {
    const faces = (this.seen.get(node) ?? []).filter((f) => !samePixels(f.signature, signature));
    faces.push({ reading, signature, confirmedAt: Date.now() });
    if (faces.length > MAX_FACES) faces.shift(); // the least recently confirmed goes
    this.seen.set(node, faces);
    if (reading.regions.modal) this.modals.add(modalKey(reading));
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

  familiarModal(reading: ScreenReading): boolean {
    return !reading.regions.modal || this.modals.has(modalKey(reading));
  }

  escalate(e: Omit<Escalation, 'at'>): Escalation {
    const full = { ...e, at: Date.now() };
    this.escalations.push(full);
    if (this.escalations.length > MAX_ESCALATIONS) this.escalations.shift();
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

/** One app's memory per team, platform and app id: what agents of one team learn, they share. */
export class Memories {
  private readonly apps = new Map<string, AppMemory>();

  of(team: string, platform: string, app: string): AppMemory {
    const key = `${team}\u0000${platform}\u0000${app}`;
    let m = this.apps.get(key);
    if (!m) this.apps.set(key, (m = new AppMemory()));
    return m;
  }
}
