// Two descriptions of one screen (a tree and text read from pixels, or two tools' dumps) become
// one, by containment, never by overlap ratios: a word's box wholly inside a row is that row (IoU
// scores the pair 0.05 and would keep both, and every later question about the row would find two
// candidates and refuse). What the second source adds is kept with its own source; what it repeats
// is dropped; what it knows that the first did not (a name for an unnamed control) fills the gap.
import type { Rect, TreeNode, TreeSnapshot } from '../devices/backend.js';
import { area, containment } from './geometry.js';
import { editDistance, normaliseLabel } from './names.js';

/** A node of the second source inside a node of the first at least this much is part of it. */
export const CONTAINED = 0.9;

export interface MergeReport {
  /** Second-source nodes that named an unnamed control of the first. */
  named: number;
  /** Second-source nodes that said again what the first already said. */
  repeated: number;
  /** Second-source nodes inside a control of the first whose words differ: kept as its detail. */
  detailed: number;
  /** Second-source nodes nothing of the first holds: added. */
  added: number;
  /** Second-source words inside a text or a field that say something else than the tree: both kept, the tree's as told. */
  contradicted: number;
}

export function mergeSources(first: TreeSnapshot, second: TreeSnapshot): { tree: TreeSnapshot; report: MergeReport } {
  const nodes: TreeNode[] = first.nodes.map((n) => ({ ...n, states: { ...n.states } }));
  const report: MergeReport = { named: 0, repeated: 0, detailed: 0, added: 0, contradicted: 0 };
  const details = new Map<number, TreeNode[]>();
  for (const s of second.nodes) {
    const words = normaliseLabel(s.label || s.value || '');
    // The smallest node of the first that holds it: the row, not the list around the row.
    const holder = smallestHolder(nodes.slice(0, first.nodes.length), s.frame);
    if (holder) {
      const sameWords = (n: TreeNode) => words !== '' && normaliseLabel(n.label).toLowerCase() === words.toLowerCase();
      if (
        !words ||
        sameWords(holder) ||
        nodes.some((n) => n.parent === holder.index && sameWords(n)) ||
        (details.get(holder.index) ?? []).some((d) => normaliseLabel(d.label) === words)
      ) {
        report.repeated++;
      } else if (holder.value !== null && sameText(holder.value, words)) {
        report.repeated++; // a field's value, drawn in it
      } else if (s.source === 'ocr' && FIELDS.has(holder.role) && holder.value !== null && !sameText(holder.value, words)) {
        // A field shows other text than the value the tree gives it (React Native inputs lose theirs):
        // neither is dropped; the outline shows `= value` from the tree beside `~ text` from pixels.
        holder.pixelText = holder.pixelText ? `${holder.pixelText} ${words}` : words;
        report.contradicted++;
      } else if (holder.interactive && !holder.label) {
        holder.label = words;
        holder.unnamed = false;
        if (s.source === 'ocr') {
          holder.labelFrom = 'ocr';
          if (s.confidence !== undefined) holder.confidence = s.confidence;
        }
        report.named++;
      } else if (holder.interactive || holder.role === 'cell') {
        details.set(holder.index, [
          ...(details.get(holder.index) ?? []),
          { ...s, label: words, value: null, role: 'text', interactive: false, unnamed: false },
        ]);
        report.detailed++;
      } else if ((holder.role === 'text' || holder.role === 'heading') && s.source === 'ocr' && holder.label && !sameText(holder.label, words)) {
        // The tree says one thing and the pixels another (a stale tree, a label drawn over): the
        // tree's words stand as the label and the pixels' are shown beside them, never in their place.
        holder.pixelText = holder.pixelText ? `${holder.pixelText} ${words}` : words;
        report.contradicted++;
      } else if (holder.role === 'text' || holder.role === 'heading') {
        report.repeated++; // a text box the tree already has, read again with its words (or part of them): nothing new
      } else {
        nodes.push({ ...s, index: nodes.length, parent: holder.index });
        report.added++;
      }
      continue;
    }
    nodes.push({ ...s, index: nodes.length, parent: null });
    report.added++;
  }
  // Words a control holds that it does not say become text nodes inside it, so the outline shows them
  // as the control's detail (elements.ts joins texts drawn inside a control).
  for (const [index, texts] of details) for (const t of texts) nodes.push({ ...t, index: nodes.length, parent: index });
  return { tree: { ...first, nodes }, report };
}

/** Fields whose drawn text is their value (a secure field draws dots, which say nothing). */
const FIELDS = new Set(['textfield']);

/**
 * Whether recognised words say what the tree says: the same words, or a part of them (a long label
 * wraps onto lines read one at a time), ignoring case and spacing. One letter misread in a short
 * word is the recogniser's error, not a contradiction.
 */
function sameText(tree: string, pixels: string): boolean {
  const t = normaliseLabel(tree).toLowerCase().replace(/\s+/g, ' ');
  const p = normaliseLabel(pixels).toLowerCase().replace(/\s+/g, ' ');
  if (t === p || t.includes(p) || p.includes(t)) return true;
  return editDistance(t, p) <= Math.max(1, Math.floor(Math.min(t.length, p.length) / 8));
}

function smallestHolder(nodes: TreeNode[], r: Rect): TreeNode | undefined {
  let best: TreeNode | undefined;
  for (const n of nodes) {
    if (containment(r, n.frame) < CONTAINED) continue;
    if (!best || area(n.frame) < area(best.frame)) best = n;
  }
  return best;
}
