// The outline: a screen as a few hundred tokens of text. Byte-stable (coordinates rounded, order
// fixed), region first, one element a line with a ref the next call can use. Restraint: it names
// only what the tree declares plus the regions; it never invents a widget's name.
import type { NodeStates } from '../devices/backend.js';
import type { Element } from './elements.js';
import type { RegionName } from './regions.js';
import type { ScreenReading } from './screen.js';
import { ellipsize } from '../text/clip.js';

export interface OutlineHeader {
  /** "web iPhone 15", "android (uiautomator-xml)", … */
  device: string;
  screenId: string;
  name: string | null;
  /** Known to this worker's screen memory, or new; undefined offline (inspect). */
  known?: boolean;
  /** "settled 420ms" or "not settled (moving 1.2s)"; undefined when not watched (a saved dump). */
  settle?: string;
  /** Where the reading came from when that matters ("from memory (pixels agree)"), or a disagreement. */
  note?: string;
  /** Known exits from this screen in the app's transition graph. */
  exits?: number;
  /** Verified exits whose targets are on this screen now, most used first: `tap "Compose" (7x)`. */
  workedBefore?: string[];
}

/** Labels longer than this are cut with an ellipsis: a row's preview is not the agent's business. */
const MAX_LABEL = 60;

export function outlineText(r: ScreenReading, h: OutlineHeader): string {
  const lines: string[] = [];
  const head = [
    `${h.device} · ${Math.round(r.screen.widthPt)}x${Math.round(r.screen.heightPt)}pt · screen ${h.screenId}${h.name ? ` ${quote(h.name)}` : ''}${h.known === undefined ? '' : h.known ? ` (known${h.exits ? `, ${h.exits} exit${h.exits === 1 ? '' : 's'}` : ''})` : ' (new)'}`,
  ];
  if (h.settle) head.push(h.settle);
  if (h.note) head.push(h.note);
  lines.push(head.join(' · '));
  if (h.workedBefore?.length) lines.push(`worked here before: ${h.workedBefore.join(', ')}`);
  const rowOf = rowIndex(r);
  let current: RegionName | undefined;
  const hidden: Record<string, number> = {};
  for (let i = 0; i < r.elements.length; i++) {
    const e = r.elements[i]!;
    const region = r.regionOf[i]!;
    const ref = r.refs[i];
    if (ref === null || ref === undefined) {
      const why = e.flags.includes('covered') ? 'covered' : e.clip === null ? 'boxed' : e.frame.y < 0 ? 'above' : 'below';
      hidden[why] = (hidden[why] ?? 0) + 1;
      continue;
    }
    if (region !== current) {
      current = region;
      lines.push(sectionLine(r, region));
    }
    lines.push(elementLine(e, ref, rowOf.get(i)));
  }
  const rest = Object.entries(hidden)
    .sort()
    .map(([why, n]) => (why === 'covered' ? `${n} covered` : why === 'boxed' ? `${n} out of view in a scrolling or clipped box` : `${n} ${why} the screen`));
  if (rest.length) lines.push(`(not shown: ${rest.join(', ')})`);
  return `${lines.join('\n')}\n`;
}

function sectionLine(r: ScreenReading, region: RegionName): string {
  if (region === 'modal' && r.regions.modal) return `[modal] ${r.regions.modal.role}${r.regions.modal.label ? ` ${quote(r.regions.modal.label)}` : ''}`;
  const parts = [`[${region}]`];
  for (const l of r.lists) {
    const first = l.rows[0]!;
    if (r.regionOf[first] !== region) continue;
    parts.push(`list${l.rank === 2 ? '@2' : ''} #1..#${l.rows.length}, ${l.visible} visible`);
  }
  return parts.join(' ');
}

function elementLine(e: Element, ref: number, row: string | undefined): string {
  const parts = [`@${ref}`];
  if (row) parts.push(row);
  parts.push(e.role, `${e.tap!.x},${e.tap!.y}`);
  // Words read from pixels are marked "~": the tree did not say them (a canvas, an unnamed control).
  if (e.label) parts.push(e.fromPixels ? `~${quote(e.label)}` : quote(e.label));
  if (e.detail) parts.push(`· ${cut(e.detail)}`);
  if (e.value !== null) parts.push(`= ${quote(e.value)}`);
  // The tree says one thing, the pixels another: both, the tree's first (`= value` / the label) and
  // what is drawn as `~ text`.
  if (e.pixelText) parts.push(`~ ${quote(e.pixelText)}`);
  if (e.id && e.interactive && !/^\d+$/.test(e.id)) parts.push(`#${e.id}`);
  parts.push(...stateWords(e.states, e.role), ...e.flags.filter((f) => f !== 'offscreen' && f !== 'covered'));
  return parts.join(' ');
}

const TOGGLES = new Set(['switch', 'checkbox', 'radio']);

function stateWords(s: NodeStates, role: string): string[] {
  const out: string[] = [];
  if (s.checked === 'mixed') out.push('mixed');
  else if (s.checked === true) out.push(TOGGLES.has(role) ? 'on' : 'pressed');
  else if (TOGGLES.has(role)) out.push('off');
  if (s.selected) out.push('selected');
  if (s.expanded) out.push('expanded');
  if (s.focused) out.push('focused');
  if (s.disabled) out.push('disabled');
  return out;
}

/** "#3" for the primary list's third row, "#2@2" for the secondary list's second. */
function rowIndex(r: ScreenReading): Map<number, string> {
  const out = new Map<number, string>();
  for (const l of r.lists) for (const [k, i] of l.rows.entries()) out.set(i, `#${k + 1}${l.rank === 2 ? '@2' : ''}`);
  return out;
}

const cut = (s: string): string => ellipsize(s, MAX_LABEL);
export const quote = (s: string): string => JSON.stringify(cut(s));

/** The same reading as JSON, for programs: every field the text shows, and the evidence. */
export function outlineJson(r: ScreenReading, h: OutlineHeader) {
  const rowOf = rowIndex(r);
  return {
    device: h.device,
    screen: { id: h.screenId, name: h.name, known: h.known ?? null, fingerprint: r.fingerprint.hash, title: r.title },
    size: { widthPt: Math.round(r.screen.widthPt), heightPt: Math.round(r.screen.heightPt) },
    settle: h.settle ?? null,
    regions: {
      top: r.regions.top && { y0: Math.round(r.regions.top.y0), y1: Math.round(r.regions.top.y1), by: r.regions.evidence.top! },
      bottom: r.regions.bottom && { y0: Math.round(r.regions.bottom.y0), y1: Math.round(r.regions.bottom.y1), by: r.regions.evidence.bottom! },
      keyboard: r.regions.keyboard && roundRect(r.regions.keyboard),
      modal: r.regions.modal && { role: r.regions.modal.role, label: r.regions.modal.label, frame: roundRect(r.regions.modal.frame) },
    },
    lists: r.lists.map((l) => ({ rank: l.rank, rows: l.rows.length, visible: l.visible, basis: l.basis })),
    elements: r.elements.map((_, i) => elementJson(r, i, rowOf)),
  };
}

/** One element as JSON (an action's target needs this one, not the whole outline). */
export function elementJson(r: ScreenReading, i: number, rowOf = rowIndex(r)) {
  const e = r.elements[i]!;
  return {
    ref: r.refs[i] ?? null,
    row: rowOf.get(i) ?? null,
    region: r.regionOf[i]!,
    role: e.role,
    label: e.label,
    detail: e.detail,
    value: e.value,
    id: e.id,
    states: e.states,
    tap: e.tap,
    frame: roundRect(e.frame),
    flags: e.flags,
    source: e.source,
    ...(e.fromPixels ? { labelFrom: 'ocr' as const, confidence: e.fromPixels.confidence } : {}),
    ...(e.pixelText ? { pixelText: e.pixelText } : {}),
  };
}

export type OutlineJson = ReturnType<typeof outlineJson>;

const roundRect = (r: { x: number; y: number; width: number; height: number }) => ({
  x: Math.round(r.x),
  y: Math.round(r.y),
  width: Math.round(r.width),
  height: Math.round(r.height),
});
