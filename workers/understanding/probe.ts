// Hit-test probing where the tree hides children: a container that reports none (a tab bar whose
// buttons are hidden from accessibility, a React Native row) yet is visibly not empty is asked,
// point by point, what the platform's own hit test finds there. Points go adaptively: a coarse
// grid of seeds first, then only the cells where nothing was found are split, skipping what a
// found control already covers, down to a smallest cell. Every probe is counted.
import { type Clock, systemClock } from '../clock.js';
import type { HitElement, Point, Rect, ScreenSize, TreeNode } from '../devices/backend.js';
import { LATE, within } from '../within.js';
import { containment } from './geometry.js';
import type { Gray } from './ocr/where.js';

/** Containers whose children a platform may fail to report. */
const CONTAINERS = new Set(['tabbar', 'toolbar', 'navbar', 'list', 'group', 'navigation', 'header', 'footer', 'other']);
/** A cell no smaller than this is split further (points: about a fingertip). */
const MIN_CELL_PT = 22;
/** Probes one container may spend. */
const MAX_PROBES = 64;
/** Gray levels of spread inside a container that say something is drawn there. */
const DRAWN_SPREAD = 24;

export type HitTest = (points: Point[]) => Promise<(HitElement | null)[]>;

export interface ProbeReport {
  containers: number;
  probes: number;
  found: number;
}

/** Containers with no child in the tree whose pixels show something drawn. */
export function silentContainers(nodes: readonly TreeNode[], screen: ScreenSize, gray: Gray): TreeNode[] {
  return nodes.filter((c) => {
    if (!CONTAINERS.has(c.role) || c.offscreen || c.frame.width < MIN_CELL_PT * 2 || c.frame.height < MIN_CELL_PT) return false;
    if (c.frame.width * c.frame.height > 0.5 * screen.widthPt * screen.heightPt) return false; // a page, not a bar
    const inside = nodes.some((n) => n !== c && (n.parent === c.index || containment(n.frame, c.frame) >= 0.9) && (n.label || n.interactive));
    return !inside && drawnIn(c.frame, screen, gray);
  });
}

function drawnIn(f: Rect, screen: ScreenSize, gray: Gray): boolean {
  const sx = gray.width / screen.widthPt;
  const sy = gray.height / screen.heightPt;
  let lo = 255;
  let hi = 0;
  for (let y = Math.max(0, Math.floor(f.y * sy)); y < Math.min(gray.height, Math.ceil((f.y + f.height) * sy)); y++) {
    for (let x = Math.max(0, Math.floor(f.x * sx)); x < Math.min(gray.width, Math.ceil((f.x + f.width) * sx)); x++) {
      const v = gray.data[y * gray.width + x]!;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return hi - lo >= DRAWN_SPREAD;
}

/**
 * Probes one container; the controls found become nodes (children of it), in the order found. By
 * `deadline` (on the clock's time) it stops, between rounds or while waiting for one, with what
 * it found so far and `cut` set: on a starved host one container's hit tests once took 8 s, past
 * the time its read had to answer in. A round it stopped waiting for goes on in the platform,
 * unused; its probes are counted, since they were spent.
 */
export async function probeContainer(
  container: TreeNode,
  hitTest: HitTest,
  firstIndex: number,
  deadline = Infinity,
  clock: Clock = systemClock,
): Promise<{ nodes: TreeNode[]; probes: number; cut: boolean }> {
  const found: HitElement[] = [];
  let probes = 0;
  let cut = false;
  let cells = seeds(container.frame);
  while (cells.length && probes < MAX_PROBES) {
    const toProbe = cells.filter((c) => !found.some((f) => inside(centre(c), f.frame))).slice(0, MAX_PROBES - probes);
    if (!toProbe.length) break;
    const left = deadline - clock.now();
    if (left <= 0) {
      cut = true;
      break;
    }
    probes += toProbe.length;
    const hits = await within(hitTest(toProbe.map(centre)), left, clock);
    if (hits === LATE) {
      cut = true;
      break;
    }
    const empty: Rect[] = [];
    toProbe.forEach((cell, i) => {
      const hit = hits[i];
      // The container itself, or something as large, is not a child.
      if (hit && hit.frame.width * hit.frame.height < 0.9 * container.frame.width * container.frame.height && containment(hit.frame, container.frame) >= 0.5) {
        if (!found.some((f) => sameBox(f.frame, hit.frame))) found.push(hit);
      } else {
        empty.push(cell);
      }
    });
    cells = empty.flatMap(split);
  }
  const nodes = found.map(
    (h, i): TreeNode => ({
      index: firstIndex + i,
      parent: container.index,
      role: h.role === 'group' && h.interactive ? 'button' : h.role,
      label: h.label,
      value: null,
      states: {},
      frame: h.frame,
      id: h.id,
      source: container.source,
      interactive: h.interactive,
      unnamed: h.interactive && !h.label,
      offscreen: false,
      probed: true,
    }),
  );
  return { nodes, probes, cut };
}

/** A row of seeds across a bar, a grid over anything squarer: cells of about two fingertips. */
function seeds(f: Rect): Rect[] {
  const cols = Math.max(1, Math.round(f.width / (MIN_CELL_PT * 4)));
  const rows = Math.max(1, Math.round(f.height / (MIN_CELL_PT * 4)));
  const out: Rect[] = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) out.push({ x: f.x + (c * f.width) / cols, y: f.y + (r * f.height) / rows, width: f.width / cols, height: f.height / rows });
  return out;
}

/** Quarters of a cell (halves of a thin one), until they would be smaller than a fingertip. */
function split(c: Rect): Rect[] {
  const w = c.width / 2 >= MIN_CELL_PT ? 2 : 1;
  const h = c.height / 2 >= MIN_CELL_PT ? 2 : 1;
  if (w === 1 && h === 1) return [];
  const out: Rect[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) out.push({ x: c.x + (x * c.width) / w, y: c.y + (y * c.height) / h, width: c.width / w, height: c.height / h });
  return out;
}

const centre = (r: Rect): Point => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
const inside = (p: Point, r: Rect) => p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height;
const sameBox = (a: Rect, b: Rect) =>
  Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1 && Math.abs(a.width - b.width) < 1 && Math.abs(a.height - b.height) < 1;
