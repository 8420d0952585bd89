// What happened between two settled frames, read from the frames between them: none, push, pop,
// scroll (with its offset), sheet up or down, alert shown or dismissed, keyboard up or down, or a
// replace. The kind comes with its evidence and a confidence, and is reported beside a verdict,
// never instead of it (the field report's classifier read one tab switch as replace on one run and
// pop on the next: a noisy kind must not decide whether an action worked).
//
// Lessons built in: search for a vertical shift only on the band that changed (fixed bars would
// make "no shift" win); prefer, among the shifts that fit the two ends, the one the stream of
// frames in between agrees with (list rows repeat, so several shifts fit); tell a push from a pop by
// which end screen slides over the other in the frames between, not by the end states alone nor by
// the summed flow (frames can arrive out of order).
import type { FineProfile, FrameAnalysis } from './analysis.js';
import { slideVotes } from './sliding.js';

export type TransitionKind =
  | 'none'
  | 'push'
  | 'pop'
  | 'scroll'
  | 'sheet-up'
  | 'sheet-down'
  | 'alert'
  | 'alert-dismissed'
  | 'keyboard-up'
  | 'keyboard-down'
  | 'replace';

export interface TransitionEvidence {
  /** Mean change (gray levels) in the top 10 %, the middle and the bottom 12 % of the screen. */
  bands: { top: number; content: number; bottom: number };
  /** 1 − cost(best vertical shift) / cost(no shift), on the changed band. */
  shiftScore: number;
  /** Horizontal motion summed over the frames in between (grid pixels; positive = leftwards). */
  horizontalFlow: number;
  /** Share of the screen dimmed by an overlay (in the after frame, or in the before frame when one went away). */
  dimmed: number;
  frames: number;
}

export interface Transition {
  kind: TransitionKind;
  confidence: number;
  /** For a scroll: how far the content moved, in points (positive y: towards the end). */
  offsetPt?: { x: number; y: number };
  evidence: TransitionEvidence;
}

const r2 = (n: number) => Math.round(n * 100) / 100;
/**
 * Classification runs on the worker's event loop, where touches are dispatched and the gateway is
 * answered: a long scroll's 50 frame pairs take tens of milliseconds in all, so the work gives the
 * loop a turn whenever it has held it this long.
 */
const SLICE_MS = 2;
let sliceStart = performance.now();
async function yieldIfDue(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}

/**
 * Where between three costs the true minimum lies, from −0.5 to 0.5. Mean absolute differences
 * grow linearly away from the minimum, so the fit is a V with equal slopes (a parabola pulls the
 * estimate towards the whole pixel, which undercounts a long scroll by a tenth).
 */
function subPixel(left: number, c: number, right: number): number {
  const rise = Math.max(left, right) - c;
  if (!(rise > 0)) return 0;
  return Math.max(-0.5, Math.min(0.5, (left - right) / (2 * rise)));
}

/** Consecutive frames further apart than this while content moved: the stream stalled between them. */
const STALL_MS = 150;

/** A shift whose cost passed the bound: larger than any that could win. */
const ABANDONED = Number.MAX_VALUE;

export async function classify(frames: readonly FrameAnalysis[]): Promise<Transition> {
  const a = frames[0]!;
  const b = frames.at(-1)!;
  const W = a.gridW;
  const H = a.gridH;
  const rowDelta = rowDeltas(a, b);
  const bands = {
    top: mean(rowDelta.slice(0, Math.ceil(H * 0.1))),
    content: mean(rowDelta.slice(Math.ceil(H * 0.1), Math.floor(H * 0.88))),
    bottom: mean(rowDelta.slice(Math.floor(H * 0.88))),
  };
  const evidence: TransitionEvidence = {
    bands: { top: r2(bands.top), content: r2(bands.content), bottom: r2(bands.bottom) },
    shiftScore: 0,
    horizontalFlow: 0,
    dimmed: 0,
    frames: frames.length,
  };
  const changedRows = rowDelta.map((d, y) => (d > 1.5 ? y : -1)).filter((y) => y >= 0);
  if (changedRows.length === 0) return { kind: 'none', confidence: 1, evidence };

  // A keyboard: everything above the bottom 45 % unchanged (so nothing was dimmed), a full-width
  // block at the bottom.
  const y0 = changedRows[0]!;
  const y1 = changedRows.at(-1)!;
  if (y0 >= H * 0.55 && y1 >= H - 2 && fullWidthChange(a, b, y0, y1)) {
    const rising = revealDirection(frames, y0, y1);
    return { kind: rising >= 0 ? 'keyboard-up' : 'keyboard-down', confidence: rising === 0 ? 0.5 : 0.8, evidence };
  }

  // An overlay with a dimmed backdrop: a sheet or an alert, coming or going.
  for (const [from, to, appearing] of [
    [a, b, true],
    [b, a, false],
  ] as const) {
    const overlay = findOverlay(from, to);
    if (overlay) {
      evidence.dimmed = r2(overlay.dimmed);
      const box = overlay.box;
      const sheet = box.y + box.height >= H * 0.93 && box.width >= W * 0.85;
      const centred = box.x > 0 && box.x + box.width < W && Math.abs(box.x + box.width / 2 - W / 2) < W * 0.15 && box.y > 0 && box.y + box.height < H;
      if (sheet) return { kind: appearing ? 'sheet-up' : 'sheet-down', confidence: r2(Math.min(1, overlay.dimmed * 1.5)), evidence };
      if (centred) return { kind: appearing ? 'alert' : 'alert-dismissed', confidence: r2(Math.min(1, overlay.dimmed * 1.5)), evidence };
    }
  }

  const flow = await streamFlow(frames, y0, y1);
  await yieldIfDue();
  evidence.horizontalFlow = r2(flow.dx);

  // A scroll: the changed band is the before band shifted.
  const shift = bestVerticalShift(a, b, y0, y1, flow.dy);
  evidence.shiftScore = r2(shift.score);
  const horizontalMotion = Math.abs(flow.dx) >= 3 && flow.agreeingX >= 2;
  // A scroll: the ends fit a shift well, or they fit the one a long, steady stream of frames agrees on.
  // The stream undercounts a little (the first and last frames of a motion), so agreement is relative.
  const streamBacked = !flow.broken && flow.agreeingY >= 5 && Math.abs(shift.rows - flow.dy) <= Math.max(3, Math.abs(flow.dy) * 0.15) && shift.score > USEFUL;
  if (!horizontalMotion && shift.rows !== 0 && ((shift.score > 0.6 && shift.cost < 8) || streamBacked)) {
    // With frames missing in the middle (a stream that stalled under load), a list's repeating rows
    // can make the two ends fit a row pitch away from the truth on the grid, and the stream cannot
    // vouch for the distance: then the offset is not given rather than given wrong (one CI run
    // measured 344 pt for a 200 pt scroll). The fine profile tells the rows apart and needs no stream.
    const gap = frames.slice(1).some((f, i) => f.at - frames[i]!.at > STALL_MS);
    if ((gap && !streamBacked && !shift.measuredFine) || shift.ambiguous) return { kind: 'scroll', confidence: r2(Math.min(0.6, shift.score)), evidence };
    return { kind: 'scroll', confidence: r2(Math.min(1, shift.score)), offsetPt: { x: 0, y: Math.round(shift.rows * (a.heightPt / H)) }, evidence };
  }
  if (horizontalMotion) {
    // The flow says that content moved sideways, not which way the screens went: frames out of
    // order and stalls either side of them once summed a push to a pop (sliding.ts). Which end
    // screen slid over the other decides; when the frames cannot tell, neither is claimed.
    const slide = await slideBetween(frames, y0, y1, flow.dx);
    return slide ? { kind: slide.kind, confidence: slide.confidence, evidence } : { kind: 'replace', confidence: 0.3, evidence };
  }
  // Too big for the two ends to overlap, but the frames between moved steadily vertically.
  if (Math.abs(flow.dy) >= (y1 - y0) * 0.6 && flow.agreeingY >= 3 && !flow.broken) {
    return { kind: 'scroll', confidence: 0.6, offsetPt: { x: 0, y: Math.round(flow.dy * (a.heightPt / H)) }, evidence };
  }
  // Frames out of order can also leave the flow's pairs disagreeing about a slide that did happen
  // (a pop under load came out as a replace): sideways flow, and frames that show one end sliding
  // over the other, are a push or a pop still, if seen in more than one frame.
  if (Math.abs(flow.dx) >= 3) {
    const slide = await slideBetween(frames, y0, y1, flow.dx);
    if (slide && slide.seen >= 2) return { kind: slide.kind, confidence: Math.min(0.5, slide.confidence), evidence };
  }
  return { kind: 'replace', confidence: r2(Math.min(1, bands.content / 20)), evidence };
}

/** A push or a pop when the frames show one end screen sliding over the other and none the reverse. */
async function slideBetween(
  frames: readonly FrameAnalysis[],
  y0: number,
  y1: number,
  flowDx: number,
): Promise<{ kind: 'push' | 'pop'; confidence: number; seen: number } | undefined> {
  const votes = await slideVotes(frames, y0, y1, yieldIfDue);
  const kind = votes.push > 0 && votes.pop === 0 ? 'push' : votes.pop > 0 && votes.push === 0 ? 'pop' : undefined;
  if (!kind) return undefined;
  const seen = Math.max(votes.push, votes.pop);
  // The flow's sign is the weaker witness (it follows the frames' order); disagreeing, it lowers the confidence.
  const flowAgrees = kind === 'push' ? flowDx > 0 : flowDx < 0;
  return { kind, seen, confidence: r2(flowAgrees ? Math.min(1, Math.abs(flowDx) / 12, seen / 3) : Math.min(0.5, seen / 6)) };
}

function rowDeltas(a: FrameAnalysis, b: FrameAnalysis): number[] {
  const out: number[] = [];
  for (let y = 0; y < a.gridH; y++) {
    let s = 0;
    for (let x = 0; x < a.gridW; x++) s += Math.abs(a.gray[y * a.gridW + x]! - b.gray[y * b.gridW + x]!);
    out.push(s / a.gridW);
  }
  return out;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

/**
 * Where `to` is `from` dimmed by a dark translucent layer (to ≈ k · from, k between 0.45 and 0.85)
 * over much of the screen, and the box of what is not dimmed (the new surface).
 */
function findOverlay(from: FrameAnalysis, to: FrameAnalysis): { dimmed: number; box: { x: number; y: number; width: number; height: number } } | undefined {
  const W = from.gridW;
  const H = from.gridH;
  // The dimming factor is the commonest darkening ratio (a translucent black layer multiplies every
  // covered pixel by the same k); it must cover at least 5 % of the screen to count.
  const bins = new Array<number>(26).fill(0);
  let counted = 0;
  for (let i = 0; i < from.gray.length; i++) {
    if (from.gray[i]! <= 60) continue;
    counted++;
    const ratio = to.gray[i]! / from.gray[i]!;
    if (ratio >= 0.4 && ratio < 0.92) bins[Math.floor((ratio - 0.4) / 0.02)]!++;
  }
  const peak = bins.indexOf(Math.max(...bins));
  if (counted === 0 || bins[peak]! < counted * 0.05) return undefined;
  const k = 0.4 + (peak + 0.5) * 0.02;
  const undimmed = new Uint8Array(W * H);
  const dimmedMask = new Uint8Array(W * H);
  for (let i = 0; i < from.gray.length; i++) {
    const expected = from.gray[i]! * k;
    if (Math.abs(to.gray[i]! - expected) <= 14 && Math.abs(to.gray[i]! - from.gray[i]!) > 8) dimmedMask[i] = 1;
    else if (Math.abs(to.gray[i]! - expected) > 20) undimmed[i] = 1;
  }
  // The new surface: the rows and columns where most pixels are not dimmed (unchanged pixels count
  // as not dimmed, so a screen that merely changed in place has no backdrop left outside its box).
  const rowsOn: number[] = [];
  for (let y = 0; y < H; y++) {
    let n = 0;
    for (let x = 0; x < W; x++) n += undimmed[y * W + x]!;
    if (n > W * 0.3) rowsOn.push(y);
  }
  if (rowsOn.length === 0) return undefined;
  const top = rowsOn[Math.floor(rowsOn.length * 0.05)]!;
  const bottom = rowsOn[Math.ceil(rowsOn.length * 0.95) - 1]!;
  const colsOn: number[] = [];
  for (let x = 0; x < W; x++) {
    let n = 0;
    for (let y = top; y <= bottom; y++) n += undimmed[y * W + x]!;
    if (n > (bottom - top + 1) * 0.5) colsOn.push(x);
  }
  if (colsOn.length === 0) return undefined;
  const box = { x: colsOn[0]!, y: top, width: colsOn.at(-1)! - colsOn[0]! + 1, height: bottom - top + 1 };
  // A backdrop lies around the surface: darkened pixels inside it are the surface's own colours (a
  // grey keyboard, a grey card replacing white), not a dimming layer. A tall sheet leaves only a
  // fifth of the screen dimmed above it, so a twelfth is the bar.
  let outside = 0;
  for (let i = 0; i < dimmedMask.length; i++) {
    if (!dimmedMask[i]) continue;
    const x = i % W;
    const y = (i / W) | 0;
    if (x < box.x || x >= box.x + box.width || y < box.y || y >= box.y + box.height) outside++;
  }
  const dimmed = outside / (W * H);
  if (dimmed < 0.08) return undefined;
  return { dimmed, box };
}

function fullWidthChange(a: FrameAnalysis, b: FrameAnalysis, y0: number, y1: number): boolean {
  let cols = 0;
  for (let x = 0; x < a.gridW; x++) {
    let s = 0;
    for (let y = y0; y <= y1; y++) s += Math.abs(a.gray[y * a.gridW + x]! - b.gray[y * a.gridW + x]!);
    if (s / (y1 - y0 + 1) > 2) cols++;
  }
  return cols >= a.gridW * 0.9;
}

/** +1 when a bottom block rose into view over the frames, −1 when it sank away, 0 when unknown. */
function revealDirection(frames: readonly FrameAnalysis[], y0: number, y1: number): number {
  if (frames.length < 3) return 0;
  const a = frames[0]!;
  const b = frames.at(-1)!;
  const topEdge = (f: FrameAnalysis, ref: FrameAnalysis) => {
    for (let y = y0; y <= y1; y++) {
      let s = 0;
      for (let x = 0; x < f.gridW; x++) s += Math.abs(f.gray[y * f.gridW + x]! - ref.gray[y * f.gridW + x]!);
      if (s / f.gridW > 4) return y;
    }
    return y1 + 1;
  };
  const mid = frames[Math.floor(frames.length / 2)]!;
  // Rising: halfway through, part of the block already differs from the start.
  const risenAtMid = topEdge(mid, a) <= y1;
  const goneAtMid = topEdge(mid, b) > y0;
  if (risenAtMid && !goneAtMid) return 1;
  if (goneAtMid && !risenAtMid) return -1;
  return topEdge(mid, a) < topEdge(mid, b) ? -1 : 1;
}

/**
 * Motion summed over consecutive frames, on the changed rows. Each pair's shift is tracked: of the
 * shifts that fit the pair about as well as the best, the one nearest the previous pair's wins, so a
 * list whose rows repeat cannot make one pair jump by a whole row pitch.
 */
async function streamFlow(
  frames: readonly FrameAnalysis[],
  y0: number,
  y1: number,
): Promise<{ dx: number; dy: number; agreeingX: number; agreeingY: number; broken: boolean }> {
  const xs: number[] = [];
  const ys: number[] = [];
  let prevX = 0;
  let prevY = 0;
  let broken = false;
  const gaps: { ms: number; moved: boolean }[] = [];
  for (let i = 1; i < frames.length; i++) {
    await yieldIfDue();
    // One pair cannot move both ways at once: the axis that moved last goes first, and when it
    // explains the pair almost entirely the other is not searched (it halves the cost of a scroll).
    const NONE: { rows: number; score: number; differs?: boolean } = { rows: 0, score: 0, differs: false };
    const p = frames[i - 1]!;
    const q = frames[i]!;
    let h = NONE;
    let v = NONE;
    if (Math.abs(prevX) > Math.abs(prevY)) {
      h = pairShift(p, q, y0, y1, 'x', 10, prevX);
      if (!(h.score > EXPLAINED && h.rows !== 0)) v = pairShift(p, q, y0, y1, 'y', PAIR_MAX_Y, prevY);
    } else {
      v = pairShift(p, q, y0, y1, 'y', PAIR_MAX_Y, prevY);
      if (!(v.score > EXPLAINED && v.rows !== 0)) h = pairShift(p, q, y0, y1, 'x', 10, prevX);
    }
    // Across a stall the content may have moved further than a pair is searched for, or a list's
    // row pitch away: a pair there that no shift explains, or that sits at the search limit, means
    // the stream's sum undercounts and cannot vouch for a distance.
    if (q.at - p.at > STALL_MS && v.differs !== false && (!(v.score > USEFUL) || Math.abs(v.rows) >= PAIR_MAX_Y - 1)) broken = true;
    gaps.push({ ms: q.at - p.at, moved: v.rows !== 0 });
    xs.push(steady(h.score > USEFUL ? h.rows : 0, prevX));
    ys.push(steady(v.score > USEFUL ? v.rows : 0, prevY));
    prevX = xs.at(-1)!;
    prevY = ys.at(-1)!;
  }
  // Motion on a screen is smooth: a lone spike (a shift of a whole row pitch in a list) is noise.
  const fx = median5(xs);
  const fy = median5(ys);
  // But a pair that came well after the usual frame interval, mid-motion, covers more ground than
  // its neighbours, and the filter above takes it for a spike: the sum then undercounts by about
  // what it moved (twice in CI under load, a row pitch short), so such a stream cannot vouch.
  const usual = [...gaps.map((g) => g.ms)].sort((a, b) => a - b)[gaps.length >> 1] ?? 0;
  if (gaps.slice(1).some((g) => g.moved && g.ms > Math.max(LATE_MS, usual * 3))) broken = true;
  const agree = (v: number[]) => {
    const pos = v.filter((x) => x > 0.25).length;
    const neg = v.filter((x) => x < -0.25).length;
    return Math.abs(pos - neg);
  };
  return { dx: sum(fx), dy: sum(fy), agreeingX: agree(fx), agreeingY: agree(fy), broken };
}

/** A pair this late (and three times the usual interval) mid-motion breaks the stream's sum. */
const LATE_MS = 60;

/** The largest vertical shift searched between two consecutive frames (grid rows). */
const PAIR_MAX_Y = 24;

/** A pair shift must explain more than this share of the pair's difference to count as motion. */
const USEFUL = 0.3;
/** A pair shift scoring above this leaves too little unexplained for motion on the other axis. */
const EXPLAINED = 0.8;

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** A pair that breaks sharply from a moving velocity (content loading mid-scroll) holds the velocity. */
function steady(v: number, prev: number): number {
  return prev !== 0 && Math.abs(v - prev) > Math.max(3, Math.abs(prev) * 1.5) ? prev : v;
}

function median5(xs: number[]): number[] {
  return xs.map((_, i) => {
    const w = xs.slice(Math.max(0, i - 2), i + 3).sort((a, b) => a - b);
    return w[Math.floor(w.length / 2)]!;
  });
}

/** Shift between two consecutive frames: q(x) = p(x + s) (content moved left/up by s). */
function pairShift(
  p: FrameAnalysis,
  q: FrameAnalysis,
  y0: number,
  y1: number,
  axis: 'x' | 'y',
  max: number,
  near: number,
): { rows: number; score: number; differs?: boolean } {
  const W = p.gridW;
  const P = p.gray;
  const Q = q.gray;
  const rows = y1 - y0 + 1;
  const minN = axis === 'x' ? rows * W * 0.5 : W * 3;
  const count = (s: number) =>
    axis === 'x' ? rows * Math.max(0, Math.min(W, W - s) - Math.max(0, -s)) : Math.max(0, Math.min(y1, y1 - s) - Math.max(y0, y0 - s) + 1) * W;
  // Mean absolute difference at shift s; gives up (ABANDONED) once the sum passes `limit`. This
  // runs for every pair of frames in a transition, on the event loop, so it has to be cheap: tight
  // loops over precomputed ranges, and most shifts abandoned after a few rows (branch and bound).
  const cost = (s: number, limit = Infinity) => {
    const n = count(s);
    if (n <= minN) return Infinity;
    let sum = 0;
    if (axis === 'x') {
      const xa = Math.max(0, -s);
      const xb = Math.min(W, W - s);
      for (let y = y0; y <= y1; y++) {
        const r = y * W;
        for (let x = xa; x < xb; x++) {
          const d = Q[r + x]! - P[r + x + s]!;
          sum += d < 0 ? -d : d;
        }
        if (sum > limit) return ABANDONED;
      }
    } else {
      const ya = Math.max(y0, y0 - s);
      const yb = Math.min(y1, y1 - s);
      for (let y = ya; y <= yb; y++) {
        const r = y * W;
        const rs = (y + s) * W;
        for (let x = 0; x < W; x++) {
          const d = Q[r + x]! - P[rs + x]!;
          sum += d < 0 ? -d : d;
        }
        if (sum > limit) return ABANDONED;
      }
    }
    return sum / n;
  };
  const c0 = cost(0);
  if (c0 < 1) return { rows: 0, score: 0, differs: false };
  // Shifts near the previous pair's first: the best is usually there, which makes the bound tight.
  // An abandoned shift costs more than best × 1.25 + 0.5 at the time, so it could never be a fit,
  // and every comparison below comes out as it would with its exact cost.
  const order = Array.from({ length: 2 * max + 1 }, (_, i) => i - max).sort((a, b) => Math.abs(a - near) - Math.abs(b - near));
  // The caller ignores a shift that explains no more than USEFUL of the difference. Whether any
  // shift could is cheap to find out (each try gives up at that bound); for the axis that did not
  // move, none can, and the full search is skipped with the same outcome.
  const uselessAbove = (1 - USEFUL) * c0;
  if (!order.some((sh) => sh !== 0 && cost(sh, uselessAbove * count(sh)) <= uselessAbove)) return { rows: 0, score: 0 };
  const values = new Map<number, number>([[0, c0]]);
  let best = c0;
  for (const sh of order) {
    if (sh === 0) continue;
    const c = cost(sh, (best * 1.25 + 0.5) * count(sh));
    values.set(sh, c);
    if (c < best) best = c;
  }
  const costs: [number, number][] = [];
  for (let sh = -max; sh <= max; sh++) costs.push([sh, values.get(sh)!]);
  const fits = costs.filter(([, c], i) => c <= best * 1.25 + 0.5 && c <= (costs[i - 1]?.[1] ?? Infinity) && c <= (costs[i + 1]?.[1] ?? Infinity));
  const [s, c] = fits.reduce((a, b) => (Math.abs(b[0] - near) < Math.abs(a[0] - near) ? b : a));
  // Sub-pixel, from the neighbours (motion is rarely a whole number of grid rows).
  const exact = (sh: number) => {
    const v = values.get(sh) ?? Infinity;
    return v === ABANDONED ? cost(sh) : v;
  };
  const left = s > -max ? exact(s - 1) : Infinity;
  const right = s < max ? exact(s + 1) : Infinity;
  let refined = s;
  if (s !== 0 && Number.isFinite(left) && Number.isFinite(right)) {
    refined = s + subPixel(left, c, right);
  }
  return { rows: refined, score: 1 - c / c0 };
}

/**
 * The vertical shift s that best maps the before band onto the after band (b(y) = a(y + s)), with
 * sub-row precision; among good local minima, the one nearest the stream's estimate.
 */
function bestVerticalShift(
  a: FrameAnalysis,
  b: FrameAnalysis,
  y0: number,
  y1: number,
  streamDy: number,
): { rows: number; score: number; cost: number; ambiguous: boolean; measuredFine: boolean } {
  const W = a.gridW;
  const len = y1 - y0 + 1;
  const minOverlap = Math.max(4, Math.floor(len * 0.25));
  const cost = (s: number) => {
    let sum = 0;
    let n = 0;
    for (let y = y0; y <= y1; y++) {
      const sy = y + s;
      if (sy < y0 || sy > y1) continue;
      for (let x = 0; x < W; x++) sum += Math.abs(b.gray[y * W + x]! - a.gray[sy * W + x]!);
      n++;
    }
    return n >= minOverlap ? sum / (n * W) : Infinity;
  };
  const limit = len - minOverlap;
  const costs = new Map<number, number>();
  for (let s = -limit; s <= limit; s++) costs.set(s, cost(s));
  const c0 = costs.get(0) ?? Infinity;
  const minima = [...costs.entries()].filter(([s, c]) => Number.isFinite(c) && c <= (costs.get(s - 1) ?? Infinity) && c <= (costs.get(s + 1) ?? Infinity));
  if (minima.length === 0 || !Number.isFinite(c0) || c0 < 1) return { rows: 0, score: 0, cost: c0, ambiguous: false, measuredFine: false };
  // With a stream to go on, the ends are only asked to refine it (within half a typical row pitch):
  // at eight points a grid row, a shift one list row away can fit the ends better than the true one.
  const near = streamDy !== 0 ? minima.filter(([m]) => Math.abs(m - streamDy) <= Math.max(4, Math.abs(streamDy) * 0.15)) : [];
  const pool = near.length ? near : minima;
  const [s, c] = pool.reduce((p, q) => (q[1] < p[1] ? q : p));
  // A list's rows repeat, so the ends fit one row pitch either side of the truth too. When the
  // stream (which under load can be a few rows off) lies about as close to two such fits, it cannot
  // say which is the distance: the offset is then not given rather than given a row wrong (a CI run
  // measured 271 pt for a 200 pt scroll, the stream 29 rows between fits at 24 and 33).
  let ambiguous = false;
  if (streamDy !== 0) {
    // Any fit that explains a useful share of the change counts: with new rows coming into view, an
    // alias two pitches away fitted the ends better than the truth in that run.
    const plausible = minima
      .filter(([, mc]) => mc <= c0 * (1 - USEFUL))
      .map(([m]) => Math.abs(m - streamDy))
      .sort((x, y) => x - y);
    if (plausible.length > 1 && plausible[1]! < 2 * plausible[0]! && plausible[1]! <= Math.max(6, Math.abs(streamDy) * 0.35)) ambiguous = true;
  }
  // The grid only proposes: where both ends carry the fine profile, it decides among every fit that
  // explains a useful share of the change (and the stream's estimate), since at 2 pt a row one list
  // row no longer looks like the next.
  if (a.fine && b.fine && a.fine.h === b.fine.h && a.fine.w === b.fine.w) {
    const proposals = minima.filter(([m, mc]) => m !== 0 && mc <= c0 * (1 - USEFUL)).map(([m]) => m);
    if (streamDy !== 0) proposals.push(Math.round(streamDy));
    const { fits, still } = fineFits(a.fine, b.fine, y0, y1, a.gridH, proposals);
    const [first, second] = fits;
    if (first && still > 0) {
      // Two fits a list row or more apart that the fine profile cannot tell apart either: say so.
      const tied = second !== undefined && Math.abs(second.rows - first.rows) >= 2 && second.cost <= first.cost * FINE_TIE;
      return { rows: first.rows, score: 1 - first.cost / still, cost: first.cost, ambiguous: tied, measuredFine: !tied };
    }
  }
  // Sub-pixel refinement between the neighbours.
  const left = costs.get(s - 1) ?? Infinity;
  const right = costs.get(s + 1) ?? Infinity;
  let refined = s;
  if (Number.isFinite(left) && Number.isFinite(right)) {
    refined = s + subPixel(left, c, right);
  }
  return { rows: s === 0 ? 0 : refined, score: 1 - c / c0, cost: c, ambiguous, measuredFine: false };
}

/** A runner-up fine fit within this factor of the best (and a grid row or more away) is a tie. */
const FINE_TIE = 1.15;

/**
 * Each proposed shift (grid rows) refined on the fine profiles: the best fine shift within a grid
 * row and a bit either side, its mean difference, best first. Distinct fits only (proposals that
 * refine to the same place count once).
 */
function fineFits(
  a: FineProfile,
  b: FineProfile,
  y0: number,
  y1: number,
  gridH: number,
  proposals: number[],
): { fits: { rows: number; cost: number }[]; still: number } {
  const k = a.h / gridH; // fine rows per grid row
  const f0 = Math.floor(y0 * k);
  const f1 = Math.min(a.h - 1, Math.ceil((y1 + 1) * k) - 1);
  const len = f1 - f0 + 1;
  const minOverlap = Math.max(8, Math.floor(len * 0.25));
  const memo = new Map<number, number>();
  const cost = (s: number) => {
    const hit = memo.get(s);
    if (hit !== undefined) return hit;
    const ya = Math.max(f0, f0 - s);
    const yb = Math.min(f1, f1 - s);
    const n = yb - ya + 1;
    let sum = 0;
    if (n >= minOverlap) {
      for (let y = ya; y <= yb; y++) {
        const r = y * a.w;
        const rs = (y + s) * a.w;
        for (let x = 0; x < a.w; x++) {
          const d = b.gray[r + x]! - a.gray[rs + x]!;
          sum += d < 0 ? -d : d;
        }
      }
    }
    const v = n >= minOverlap ? sum / (n * a.w) : Infinity;
    memo.set(s, v);
    return v;
  };
  const out: { rows: number; cost: number }[] = [];
  const reach = Math.ceil(k) + 1;
  for (const p of proposals) {
    const centre = Math.round(p * k);
    let best = centre;
    for (let s = centre - reach; s <= centre + reach; s++) if (cost(s) < cost(best)) best = s;
    const c = cost(best);
    // Within half a grid row of standing still is no scroll (a fade or a redraw in place).
    if (!Number.isFinite(c) || Math.abs(best) < k / 2) continue;
    if (out.some((o) => Math.abs(o.rows * k - best) < 1)) continue;
    const left = cost(best - 1);
    const right = cost(best + 1);
    const exact = Number.isFinite(left) && Number.isFinite(right) ? best + subPixel(left, c, right) : best;
    out.push({ rows: exact / k, cost: c });
  }
  return { fits: out.sort((x, y) => x.cost - y.cost), still: cost(0) };
}
