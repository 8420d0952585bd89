// Push or pop: which of the two end screens slid across the other, read from each frame in between
// on its own, against the two ends. In a push the screen it ends on comes in from the right over
// the old one: a frame caught mid-way shows, right of some edge e, the end screen shifted right by
// e. In a pop the screen it started on leaves to the right: right of the edge is the start screen
// shifted by e. Nothing here depends on the order or the spacing of the frames.
//
// Why not the summed flow alone: Chromium's screencast sometimes delivers a push's frames out of
// order (the incoming screen's edge at 22 grid pixels, then 30, then 16), so a pair of consecutive
// frames really can move backwards; when the stream stalls on either side of such a pair, the
// pairs across the stalls move further than they are searched and count for nothing, and that one
// backward pair is the whole measured flow (a push then came out as a confident pop). Judged
// against the ends, every such frame still shows the end screen sliding in from the right.
import type { FrameAnalysis } from './analysis.js';

export interface SlideVotes {
  /** Frames in which the end screen lies shifted right over the start one (a push). */
  push: number;
  /** Frames in which the start screen lies shifted right over the end one (a pop). */
  pop: number;
}

/** A frame this close to either end (share of the ends' own difference) shows too little of the slide. */
const NEAR_END = 0.3;
/** One end must fit the sliding part this much better than the other for the frame to vote. */
const CLEAR = 0.6;
/** The sliding part starts at least this far in from the left and is at least this wide (grid pixels). */
const MIN_EDGE = 2;
const MIN_WIDTH = 6;
/** Enough frames to judge by; more only cost time (a push has about 8 that are not near an end). */
const MAX_JUDGED = 8;

/** `pause` gives the event loop a turn between frames (each costs tens of thousands of differences). */
export async function slideVotes(frames: readonly FrameAnalysis[], y0: number, y1: number, pause: () => Promise<void>): Promise<SlideVotes> {
  const start = frames[0]!;
  const end = frames.at(-1)!;
  const W = start.gridW;
  const rows = y1 - y0 + 1;
  // Every other row, as below: it is only asked whether a frame is near an end.
  const difference = (p: Uint8Array, q: Uint8Array) => {
    let s = 0;
    for (let y = y0; y <= y1; y += 2) {
      for (let i = y * W; i < (y + 1) * W; i++) {
        const d = p[i]! - q[i]!;
        s += d < 0 ? -d : d;
      }
    }
    return s / (Math.ceil(rows / 2) * W);
  };
  // The least mean difference, over the edges, between the frame right of the edge and the screen
  // shifted right by it (Infinity when none comes under `cap`). Every other row and column is
  // enough (the true fit is several times better than the wrong one), and an edge is given up once
  // it cannot beat the best so far.
  const slidingFit = (f: Uint8Array, screen: Uint8Array, cap = Infinity) => {
    let best = cap;
    for (let edge = MIN_EDGE; edge <= W - MIN_WIDTH; edge++) {
      const n = Math.ceil(rows / 2) * Math.ceil((W - edge) / 2);
      const limit = best * n;
      let s = 0;
      for (let y = y0; y <= y1 && s < limit; y += 2) {
        const r = y * W;
        for (let x = edge; x < W; x += 2) {
          const d = f[r + x]! - screen[r + x - edge]!;
          s += d < 0 ? -d : d;
        }
      }
      if (s < limit) best = s / n;
    }
    return best < cap ? best : Infinity;
  };
  const apart = difference(start.gray, end.gray);
  const between = frames.slice(1, -1).filter((f) => difference(f.gray, start.gray) >= apart * NEAR_END && difference(f.gray, end.gray) >= apart * NEAR_END);
  const judged = between.length <= MAX_JUDGED ? between : Array.from({ length: MAX_JUDGED }, (_, i) => between[Math.floor((i * between.length) / MAX_JUDGED)]!);
  const votes: SlideVotes = { push: 0, pop: 0 };
  for (const f of judged) {
    await pause();
    const endOver = slidingFit(f.gray, end.gray);
    // Only a start fit that could stop a push vote matters: the others are given up early.
    const startOver = slidingFit(f.gray, start.gray, endOver / CLEAR);
    if (endOver < startOver * CLEAR) votes.push++;
    else if (startOver < endOver * CLEAR) votes.pop++;
  }
  return votes;
}
