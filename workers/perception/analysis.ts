// What one frame is, for perception: a small gray grid, cell means and a perceptual hash. And
// what changed between two of them, judged per cell as well as on the whole-frame mean.
//
// Calibration, measured on the sample app in Chromium (grid 48 × 104, cells of 4 × 4 grid pixels,
// about 33 × 33 pt on a 393 × 852 pt screen); changes are fractions of full scale (0–1):
//   a switch flipping:          whole-frame mean 0.00132, largest cell 0.0919, 19 grid pixels
//   the header clock ticking:   whole-frame mean 0.00001, largest cell 0.0039–0.0047, 0–1 pixels
//   a text caret blinking:      whole-frame mean 0.00004, largest cell 0.0137, 2 pixels (1 × 2)
// A whole-frame mean cannot see the switch (a third of the field report's 0.004 threshold). The
// cell threshold of 0.008 sits 11× below the switch and 1.7× above the clock; the caret crosses it
// and is handled by rule (rules.ts), not by the threshold.

export const GRID_W = 48;
export const CELL = 4;
/** A cell whose mean moves more than this changed. */
export const CELL_THRESHOLD = 0.008;
/** A grid pixel that moves more than this many gray levels belongs to a changed region. */
export const PIXEL_THRESHOLD = 10;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The tall, narrow picture a scroll's distance is measured on: FINE_W columns by one row per
 * FINE_ROW_PT points. On the grid (8 pt a row) a list's rows look alike and a text line is one row
 * tall, so the true shift, falling between grid rows, can fit the two ends worse than one a list row
 * away (CI measured −321 pt for a −250 pt scroll). At 2 pt a row the rows' own text tells them apart
 * (the runner-up fit costs 1.4 to 5 times the truth on the sample app's twelve scrolls). Only the
 * frames a transition is measured between carry one: settled frames and marks (eyes.ts).
 */
export const FINE_W = 24;
export const FINE_ROW_PT = 2;

export interface FineProfile {
  w: number;
  h: number;
  gray: Uint8Array;
}

export function fineHeight(heightPt: number): number {
  return Math.max(1, Math.round(heightPt / FINE_ROW_PT));
}

export interface FrameAnalysis {
  seq: number;
  /** performance.now() when the frame arrived. */
  at: number;
  /** Date.now() when it arrived, for answers that carry a timestamp. */
  wallAt: number;
  widthPt: number;
  heightPt: number;
  gridW: number;
  gridH: number;
  gray: Uint8Array;
  cells: Float32Array;
  cellsX: number;
  cellsY: number;
  hash: string;
  /** Absent for frames recorded before it existed: motion then measures on the grid alone. */
  fine?: FineProfile;
}

export function gridHeight(widthPt: number, heightPt: number): number {
  return Math.max(CELL, Math.round((GRID_W * heightPt) / widthPt));
}

export function analyse(
  gray: Uint8Array,
  meta: { seq: number; at: number; wallAt: number; widthPt: number; heightPt: number },
  fine?: FineProfile,
): FrameAnalysis {
  const gridW = GRID_W;
  const gridH = gray.length / gridW;
  const cellsX = Math.ceil(gridW / CELL);
  const cellsY = Math.ceil(gridH / CELL);
  const sums = new Float64Array(cellsX * cellsY);
  const counts = new Float64Array(cellsX * cellsY);
  for (let y = 0; y < gridH; y++) {
    const row = ((y / CELL) | 0) * cellsX;
    for (let x = 0; x < gridW; x++) {
      const c = row + ((x / CELL) | 0);
      sums[c]! += gray[y * gridW + x]!;
      counts[c]!++;
    }
  }
  const cells = new Float32Array(cellsX * cellsY);
  for (let i = 0; i < cells.length; i++) cells[i] = sums[i]! / counts[i]! / 255;
  return { ...meta, gridW, gridH, gray, cells, cellsX, cellsY, hash: dHash(gray, gridW, gridH), ...(fine ? { fine } : {}) };
}

/** A 64-bit difference hash: 9 × 8 block means, each compared with its right neighbour. */
function dHash(gray: Uint8Array, w: number, h: number): string {
  const bw = w / 9;
  const bh = h / 8;
  const block = (bx: number, by: number) => {
    let sum = 0;
    let n = 0;
    for (let y = Math.floor(by * bh); y < Math.floor((by + 1) * bh); y++) {
      for (let x = Math.floor(bx * bw); x < Math.floor((bx + 1) * bw); x++) {
        sum += gray[y * w + x]!;
        n++;
      }
    }
    return n ? sum / n : 0;
  };
  let hex = '';
  for (let by = 0; by < 8; by++) {
    let byte = 0;
    for (let bx = 0; bx < 8; bx++) byte = (byte << 1) | (block(bx, by) > block(bx + 1, by) ? 1 : 0);
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

/** Bits that differ between two hashes: 0 is the same picture at this scale. */
export function hashDistance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < a.length; i += 2) {
    let x = parseInt(a.slice(i, i + 2), 16) ^ parseInt(b.slice(i, i + 2), 16);
    while (x) {
      d += x & 1;
      x >>= 1;
    }
  }
  return d;
}

export interface Diff {
  /** Mean absolute change over the whole frame, 0–1. */
  mean: number;
  /** Largest cell change, 0–1. */
  maxCell: number;
  /** Indexes of cells above CELL_THRESHOLD. */
  changedCells: number[];
  /** Changed regions in grid pixels (connected pixels above PIXEL_THRESHOLD). */
  regions: Box[];
}

export function diff(a: FrameAnalysis, b: FrameAnalysis): Diff {
  if (a.gridW !== b.gridW || a.gridH !== b.gridH) {
    // The screen changed size (a rotation, another profile): everything changed.
    return {
      mean: 1,
      maxCell: 1,
      changedCells: Array.from({ length: b.cells.length }, (_, i) => i),
      regions: [{ x: 0, y: 0, width: b.gridW, height: b.gridH }],
    };
  }
  let sum = 0;
  const mask = new Uint8Array(a.gray.length);
  for (let i = 0; i < a.gray.length; i++) {
    const d = Math.abs(a.gray[i]! - b.gray[i]!);
    sum += d;
    if (d > PIXEL_THRESHOLD) mask[i] = 1;
  }
  const changedCells: number[] = [];
  let maxCell = 0;
  for (let i = 0; i < a.cells.length; i++) {
    const d = Math.abs(a.cells[i]! - b.cells[i]!);
    if (d > maxCell) maxCell = d;
    if (d > CELL_THRESHOLD) changedCells.push(i);
  }
  return { mean: sum / a.gray.length / 255, maxCell, changedCells, regions: components(mask, a.gridW, a.gridH) };
}

/** Bounding boxes of 8-connected changed pixels, merging boxes that touch or nearly touch. */
export function components(mask: Uint8Array, w: number, h: number): Box[] {
  const seen = new Uint8Array(mask.length);
  const boxes: Box[] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    let x0 = w,
      y0 = h,
      x1 = -1,
      y1 = -1;
    stack.push(start);
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i / w) | 0;
      if (x < x0) x0 = x;
      if (y < y0) y0 = y;
      if (x > x1) x1 = x;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const j = ny * w + nx;
          if (mask[j] && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    boxes.push({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 });
  }
  return mergeBoxes(boxes, 1);
}

export function mergeBoxes(boxes: Box[], gap: number): Box[] {
  const out = [...boxes];
  let merged = true;
  while (merged) {
    merged = false;
    for (let i = 0; i < out.length && !merged; i++) {
      for (let j = i + 1; j < out.length && !merged; j++) {
        const a = out[i]!;
        const b = out[j]!;
        if (a.x <= b.x + b.width + gap && b.x <= a.x + a.width + gap && a.y <= b.y + b.height + gap && b.y <= a.y + a.height + gap) {
          const x = Math.min(a.x, b.x);
          const y = Math.min(a.y, b.y);
          out[i] = { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
          out.splice(j, 1);
          merged = true;
        }
      }
    }
  }
  return out;
}

/** A box in grid pixels, in screen points. */
export function toPoints(box: Box, f: Pick<FrameAnalysis, 'gridW' | 'gridH' | 'widthPt' | 'heightPt'>): Box {
  const sx = f.widthPt / f.gridW;
  const sy = f.heightPt / f.gridH;
  const r = (n: number) => Math.round(n * 10) / 10;
  return { x: r(box.x * sx), y: r(box.y * sy), width: r(box.width * sx), height: r(box.height * sy) };
}

export function union(boxes: Box[]): Box | undefined {
  if (boxes.length === 0) return undefined;
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
}
