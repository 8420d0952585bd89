// Which screen this is. Two readings are the same screen when their fingerprints are similar enough
// and their titles do not differ: a differing title vetoes a match however alike the shapes
// ("Notifications" and "Privacy" are built the same). A screen node holds several fingerprints, as
// one screen scrolled, loaded or half-drawn looks several ways; a reading joins a node only on
// evidence, never because nothing else claimed it.
import { randomBytes } from 'node:crypto';
import { similarity, type Fingerprint } from './fingerprint.js';

/**
 * At or above this similarity two readings without a title conflict are one screen. Measured
 * (workers/understanding/README.md): on the sample app in Chromium, 16 same-screen pairs (scrolled,
 * later, more rows, other content) scored 0.83–1.0 and different screens without a title veto at
 * most 0.65; different screens of one app in the real corpus at most 0.39. The threshold sits
 * between the two bands.
 */
export const SAME_SCREEN = 0.74;

export interface Comparison {
  similarity: number;
  titleVeto: boolean;
  same: boolean;
}

export function compare(a: Fingerprint, b: Fingerprint): Comparison {
  const s = Math.round(similarity(a, b) * 1000) / 1000;
  const titleVeto = a.title !== null && b.title !== null && a.title.toLowerCase() !== b.title.toLowerCase();
  return { similarity: s, titleVeto, same: !titleVeto && s >= SAME_SCREEN };
}

export interface ScreenNode {
  id: string;
  name: string | null;
  fingerprints: Fingerprint[];
  readings: number;
}

export interface Identified {
  node: ScreenNode;
  known: boolean;
  similarity: number;
}

/** Fingerprints kept per node: the newest faces of a screen, enough for its usual states. */
const MAX_FINGERPRINTS = 8;

/** The screens seen on one app, held by the worker (memory in Postgres builds on it). */
export class ScreenBook {
  private readonly nodes: ScreenNode[] = [];

  identify(fp: Fingerprint, name: string | null): Identified {
    let best: { node: ScreenNode; similarity: number } | undefined;
    for (const node of this.nodes) {
      for (const known of node.fingerprints) {
        const c = compare(fp, known);
        if (c.same && (!best || c.similarity > best.similarity)) best = { node, similarity: c.similarity };
      }
    }
    if (best) {
      const node = best.node;
      node.readings++;
      if (!node.fingerprints.some((f) => f.hash === fp.hash)) {
        node.fingerprints.push(fp);
        if (node.fingerprints.length > MAX_FINGERPRINTS) node.fingerprints.shift();
      }
      node.name ??= name;
      return { node, known: true, similarity: best.similarity };
    }
    const node: ScreenNode = { id: randomBytes(4).toString('hex'), name, fingerprints: [fp], readings: 1 };
    this.nodes.push(node);
    return { node, known: false, similarity: 1 };
  }

  /** A node the farm remembers (loaded from Postgres): added, or its fingerprints merged in. */
  restore(n: ScreenNode): void {
    const have = this.node(n.id);
    if (!have) return void this.nodes.push({ ...n, fingerprints: n.fingerprints.slice(-MAX_FINGERPRINTS) });
    for (const f of n.fingerprints) if (!have.fingerprints.some((x) => x.hash === f.hash)) have.fingerprints.unshift(f);
    have.fingerprints.splice(0, Math.max(0, have.fingerprints.length - MAX_FINGERPRINTS));
    have.name ??= n.name;
    have.readings = Math.max(have.readings, n.readings);
  }

  node(id: string): ScreenNode | undefined {
    return this.nodes.find((n) => n.id === id);
  }

  get size(): number {
    return this.nodes.length;
  }
}
