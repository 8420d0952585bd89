// Two descriptions of one screen (a tree and text read from pixels, or two tools' dumps) become
// one, by containment, never by overlap ratios: a word's box wholly inside a row is that row (IoU
// scores the pair 0.05 and would keep both, and every later question about the row would find two
// candidates and refuse). What the second source adds is kept with its own source; what it repeats
// is dropped; what it knows that the first did not (a name for an unnamed control) fills the gap.
import type { Rect, TreeNode, TreeSnapshot } from '../devices/backend.js';
import { area, containment } from './geometry.js';
import { normaliseLabel } from './names.js';

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
}

export function mergeSources(first: TreeSnapshot, second: TreeSnapshot): { tree: TreeSnapshot; report: MergeReport } {
  const nodes: TreeNode[] = first.nodes.map((n) => ({ ...n, states: { ...n.states } }));
  const report: MergeReport = { named: 0, repeated: 0, detailed: 0, added: 0 };
  const details = new Map<number, TreeNode[]>();
  for (const s of second.nodes) {
    const words = normaliseLabel(s.label || s.value || '');
    // The smallest node of the first that holds it: the row, not the list around the row.
    const holder = smallestHolder(nodes.slice(0, first.nodes.length), s.frame);
    if (holder) {
      const sameWords = (n: TreeNode) => words !== '' && normaliseLabel(n.label).toLowerCase() === words.toLowerCase();
      if (!words || sameWords(holder) || nodes.some((n) => n.parent === holder.index && sameWords(n)) || (details.get(holder.index) ?? []).some((d) => normaliseLabel(d.label) === words)) {
        report.repeated++;
      } else if (holder.interactive && !holder.label) {
        holder.label = words;
        holder.unnamed = false;
        if (s.source === 'ocr') {
          holder.labelFrom = 'ocr';
          if (s.confidence !== undefined) holder.confidence = s.confidence;
        }
        report.named++;
      } else if (holder.interactive || holder.role === 'cell') {
        details.set(holder.index, [...(details.get(holder.index) ?? []), { ...s, label: words, value: null, role: 'text', interactive: false, unnamed: false }]);
        report.detailed++;
      } else if (holder.role === 'text' || holder.role === 'heading') {
        report.repeated++; // a text box the tree already has, read again with other words: the tree's words stand
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

function smallestHolder(nodes: TreeNode[], r: Rect): TreeNode | undefined {
  let best: TreeNode | undefined;
  for (const n of nodes) {
    if (containment(r, n.frame) < CONTAINED) continue;
    if (!best || area(n.frame) < area(best.frame)) best = n;
  }
  return best;
}

