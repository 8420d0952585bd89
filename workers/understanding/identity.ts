// Which screen this is. Two readings are the same screen when their structure agrees (fingerprint.ts:
// the chrome, stable ids, the kinds of content) and nothing vetoes it: a differing title that is
// chrome ("Notifications" and "Privacy" are built the same), another tab open in the same bar, or
// a modal layer on one and not the other. A title that is data (a person's or an app's name, a
// query echoed back) is a slot, not a name: it vetoes nothing. A screen node holds several
// fingerprints, as one screen scrolled, loaded or half-drawn looks several ways; a reading joins a
// node only on evidence, never because nothing else claimed it.
//
// "Same screen" means the same place in the app's navigation with the same chrome and purpose.
// Scroll position, which items a list holds, the data a template shows, a keyboard being up, time,
// and the device's size never make a different screen.
import { createHash, randomBytes } from 'node:crypto';
import { type Fingerprint, isCurrentFormat } from './fingerprint.js';

/** How each token family counts: its weight, and whether a subset counts as agreement (content seen scrolled). */
const FAMILIES: Record<string, { weight: number; measure: 'jaccard' | 'overlap'; of: string[] }> = {
  ids: { weight: 3, measure: 'jaccard', of: ['i'] },
  chrome: { weight: 1, measure: 'jaccard', of: ['c'] },
  names: { weight: 2, measure: 'overlap', of: ['c', 'n'] },
  roles: { weight: 1, measure: 'jaccard', of: ['r'] },
  lists: { weight: 1, measure: 'overlap', of: ['l'] },
};

/**
 * At or above this similarity two readings with no veto between them are one screen. Fitted on the
 * fit half of the labelled real dumps (test/field/identity: the apps whose name hashes even) and
 * reported on the held-out half; `npm run eval:identity` prints both.
 */
export const SAME_SCREEN = 0.575;

export interface FamilyEvidence {
  a: number;
  b: number;
  shared: number;
  score: number;
}

export interface Comparison {
  similarity: number;
  titleVeto: boolean;
  same: boolean;
  /** Why: each family's agreement, the vetoes that applied, and a title that counted as a slot. */
  evidence: { families: Record<string, FamilyEvidence>; vetoes: string[]; titleSlot: boolean };
}

/** A fingerprint's tokens by family, parsed once per fingerprint (a book compares each face many times). */
const parsed = new WeakMap<Fingerprint, Map<string, Set<string>>>();

function family(fp: Fingerprint, ...prefixes: string[]): ReadonlySet<string> {
  let byPrefix = parsed.get(fp);
  if (!byPrefix) {
    byPrefix = new Map();
    for (const t of fp.tokens) {
      const at = t.indexOf(':');
      const p = t.slice(0, at);
      let set = byPrefix.get(p);
      if (!set) byPrefix.set(p, (set = new Set()));
      set.add(t.slice(at + 1));
    }
    parsed.set(fp, byPrefix);
  }
  if (prefixes.length === 1) return byPrefix.get(prefixes[0]!) ?? EMPTY;
  const key = prefixes.join('+');
  let union = byPrefix.get(key);
  if (!union) {
    union = new Set<string>();
    for (const p of prefixes) for (const x of byPrefix.get(p) ?? EMPTY) union.add(x);
    byPrefix.set(key, union);
  }
  return union;
}

const EMPTY: ReadonlySet<string> = new Set();

function agreement(a: ReadonlySet<string>, b: ReadonlySet<string>, measure: 'jaccard' | 'overlap'): FamilyEvidence {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  const denom = measure === 'jaccard' ? a.size + b.size - shared : Math.min(a.size, b.size);
  return { a: a.size, b: b.size, shared, score: denom === 0 ? 0 : shared / denom };
}

/** Weighted agreement over the families either reading has, 0–1. */
const FAMILY_LIST = Object.entries(FAMILIES);

/** A family neither reading has says nothing; nor does a subset measure with one side empty (a list not yet loaded, a screen scrolled past every control). */
function counts(e: FamilyEvidence, measure: 'jaccard' | 'overlap'): boolean {
  return !((e.a === 0 && e.b === 0) || (measure === 'overlap' && (e.a === 0 || e.b === 0)));
}

/** Weighted agreement over the families either reading has, 0–1, with each family's evidence. */
export function similarity(a: Fingerprint, b: Fingerprint): { value: number; families: Record<string, FamilyEvidence> } {
  let num = 0;
  let den = 0;
  const families: Record<string, FamilyEvidence> = {};
  for (const [name, f] of FAMILY_LIST) {
    const e = agreement(family(a, ...f.of), family(b, ...f.of), f.measure);
    if (!counts(e, f.measure)) continue;
    families[name] = e;
    num += f.weight * e.score;
    den += f.weight;
  }
  return { value: den === 0 ? 0 : num / den, families };
}

/** The same value as similarity(), rounded as compare() rounds it, for the book's many comparisons: nothing allocated. */
function similarityValue(a: Fingerprint, b: Fingerprint): number {
  let num = 0;
  let den = 0;
  for (const [, f] of FAMILY_LIST) {
    const sa = family(a, ...f.of);
    const sb = family(b, ...f.of);
    if ((sa.size === 0 && sb.size === 0) || (f.measure === 'overlap' && (sa.size === 0 || sb.size === 0))) continue;
    let shared = 0;
    const [small, large] = sa.size <= sb.size ? [sa, sb] : [sb, sa];
    for (const x of small) if (large.has(x)) shared++;
    const denom = f.measure === 'jaccard' ? sa.size + sb.size - shared : small.size;
    num += f.weight * (denom === 0 ? 0 : shared / denom);
    den += f.weight;
  }
  return den === 0 ? 0 : Math.round((num / den) * 1000) / 1000;
}

/** Whether a reading's text fields take input, are read-only, or both; null when it has none. */
function fieldModes(fp: Fingerprint): 'editable' | 'readonly' | 'both' | null {
  const roles = family(fp, 'r');
  const editable = roles.has('textfield') || roles.has('securefield');
  const readonly = roles.has('textfield:readonly') || roles.has('securefield:readonly');
  return editable && readonly ? 'both' : editable ? 'editable' : readonly ? 'readonly' : null;
}

/** What keeps two readings apart however alike they are built, and whether a differing title was taken as data. */
function vetoesOf(a: Fingerprint, b: Fingerprint, titleIsData: boolean): { vetoes: string[]; titleSlot: boolean } {
  const vetoes: string[] = [];
  let titleSlot = false;
  if (a.title !== null && b.title !== null && a.title.toLowerCase() !== b.title.toLowerCase()) {
    if (titleIsData || family(a, 'x').has('title-slot') || family(b, 'x').has('title-slot')) titleSlot = true;
    else vetoes.push('title');
  }
  // Another tab open in the same bar.
  const selA = family(a, 's');
  const selB = family(b, 's');
  if (selA.size && selB.size && ![...selA].some((x) => selB.has(x))) vetoes.push('selected');
  // A form to fill and the same fields shown to review (a wizard's last step) are two screens.
  const fieldsA = fieldModes(a);
  const fieldsB = fieldModes(b);
  if (fieldsA && fieldsB && fieldsA !== fieldsB && fieldsA !== 'both' && fieldsB !== 'both') vetoes.push('editable');
  // A dialog over a screen is not the screen under it.
  const modalA = family(a, 'm');
  const modalB = family(b, 'm');
  if (modalA.size !== modalB.size || [...modalA].some((x) => !modalB.has(x))) vetoes.push('modal');
  return { vetoes, titleSlot };
}

/**
 * Two readings are the same screen when their similarity reaches SAME_SCREEN and nothing vetoes it.
 * `titleIsData`: the app's memory has learnt that this screen's title is data (a slot), so a
 * differing title vetoes nothing.
 */
export function compare(a: Fingerprint, b: Fingerprint, titleIsData = false): Comparison {
  const { value, families } = similarity(a, b);
  const s = Math.round(value * 1000) / 1000;
  const { vetoes, titleSlot } = vetoesOf(a, b, titleIsData);
  return { similarity: s, titleVeto: vetoes.includes('title'), same: vetoes.length === 0 && s >= SAME_SCREEN, evidence: { families, vetoes, titleSlot } };
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
/**
 * Where a reading came from, for identity beyond the structure alone: the screen the device showed
 * at the read before, and whether everything the eyes saw between the two was scrolling.
 */
export interface Arrival {
  from: string | null;
  scrolled: boolean;
  /** Whether the app's graph holds the transition that led here (the same action from `from`) ending at `to`. */
  reached(from: string, to: string): boolean;
}

/** The token a face carries once its screen's title is known to be data (kept with the face in memory). */
export const SLOT_TOKEN = 'x:title-slot';

export class ScreenBook {
  private readonly nodes: ScreenNode[] = [];

  /**
   * The node this reading is a face of, or a new node. Besides a match on structure, a reading
   * joins a node when it arrives by scrolling from it (scrolling never changes the screen), or when
   * only the title stands between them and the same transition (the same action from the same
   * screen) reached the node before: a template showing other data (whose profile, which query).
   * The node then learns its title as a slot, in memory, so every later visit needs no such evidence.
   */
  identify(fp: Fingerprint, name: string | null, arrival?: Arrival): Identified & { how: 'structure' | 'scrolled' | 'slot' | 'new' } {
    let best: { node: ScreenNode; similarity: number } | undefined;
    let slotted: { node: ScreenNode; similarity: number } | undefined;
    for (const node of this.nodes) {
      const slots = node.fingerprints.some((f) => family(f, 'x').has('title-slot'));
      for (const known of node.fingerprints) {
        const { vetoes } = vetoesOf(fp, known, slots);
        const onlyTitle = vetoes.length === 1 && vetoes[0] === 'title';
        if (vetoes.length && !onlyTitle) continue;
        // A title is learnt as data only by the same transition: the same action from the same screen
        // led to this node before (tapping a row of one list, addressed by its template id). Tapping
        // "Notifications" and tapping "Privacy" are two transitions, whatever the screens share.
        if (onlyTitle && !(arrival?.from && arrival.reached(arrival.from, node.id))) continue;
        const similarity = similarityValue(fp, known);
        if (similarity < SAME_SCREEN) continue;
        if (onlyTitle) {
          if (!slotted || similarity > slotted.similarity) slotted = { node, similarity };
        } else if (!best || similarity > best.similarity) best = { node, similarity };
      }
    }
    if (best) return { ...this.join(best.node, fp, name), similarity: best.similarity, how: 'structure' };
    const scrolledFrom = arrival?.scrolled && arrival.from ? this.node(arrival.from) : undefined;
    if (scrolledFrom?.fingerprints.some((f) => vetoesOf(fp, f, false).vetoes.length === 0)) {
      return { ...this.join(scrolledFrom, fp, name), similarity: 0, how: 'scrolled' };
    }
    if (slotted) {
      const face = withSlot(fp);
      slotted.node.fingerprints = slotted.node.fingerprints.map(withSlot);
      return { ...this.join(slotted.node, face, name), similarity: slotted.similarity, how: 'slot' };
    }
    const node: ScreenNode = { id: randomBytes(4).toString('hex'), name, fingerprints: [fp], readings: 1 };
    this.nodes.push(node);
    return { node, known: false, similarity: 1, how: 'new' };
  }

  private join(node: ScreenNode, fp: Fingerprint, name: string | null): { node: ScreenNode; known: true } {
    node.readings++;
    const face = node.fingerprints.some((f) => f.tokens.includes(SLOT_TOKEN)) ? withSlot(fp) : fp;
    if (!node.fingerprints.some((f) => f.hash === face.hash)) {
      node.fingerprints.push(face);
      if (node.fingerprints.length > MAX_FINGERPRINTS) node.fingerprints.shift();
    }
    node.name ??= name;
    return { node, known: true };
  }

  /** A node the farm remembers (loaded from Postgres): added, or its fingerprints merged in. */
  restore(remembered: ScreenNode): void {
    // Faces written by an earlier fingerprint format mean nothing to this one: the screen is learnt again.
    const n = { ...remembered, fingerprints: remembered.fingerprints.filter(isCurrentFormat) };
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

/** The face with its title marked as data; its hash follows its tokens. */
function withSlot(fp: Fingerprint): Fingerprint {
  if (fp.tokens.includes(SLOT_TOKEN)) return fp;
  const tokens = [...fp.tokens, SLOT_TOKEN].sort();
  return { ...fp, tokens, hash: createHash('sha256').update(tokens.join('\n')).digest('hex').slice(0, 8) };
}
