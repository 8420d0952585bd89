// The pixel tier of a screen read: the areas the tree leaves unsaid (where.ts), captured once,
// cut out and read by the text recogniser, each line becoming a node of source "ocr" with its
// confidence and its box in points — ready to merge with the tree by containment (merge.ts).
import { type Clock, systemClock } from '../../clock.js';
import type { DeviceBackend, TreeNode } from '../../devices/backend.js';
import { grayCrops } from '../../perception/image.js';
import { LATE, within } from '../../within.js';
import { RecogniserBusyError, type TextRecogniser } from './engine.js';
import type { OcrLine } from './tsv.js';
import type { OcrArea } from './where.js';

/** Pixels per point text is read at: small type needs about 2× on a phone; more costs time, not words. */
const READ_SCALE = 2;

/**
 * How long one read may spend capturing and recognising text: a screen read answers within the
 * gateway's 10 s call timeout even when the pixels contradict the tree everywhere (each area may
 * take four recogniser runs, and a thin stripe of a pattern once took 7 s of them). Areas not begun
 * by then are left unread and counted; a run still going finishes in the background for the next
 * read. A read whose tree was slow gives the tier less (service.ts, READ_ANSWER_MS).
 */
export const PIXEL_BUDGET_MS = 4000;

export interface PixelReading {
  nodes: TreeNode[];
  areas: OcrArea[];
  ms: number;
  /** Of which the capture took (waiting its turn among the device's captures included). */
  captureMs: number;
  /** Areas the budget ran out before (not read at all, or not to the end of their ladder). */
  unread: number;
  /** The capture itself did not come within the budget: nothing was read. */
  captureLate?: true;
}

export async function readPixels(
  device: DeviceBackend,
  areas: OcrArea[],
  recogniser: TextRecogniser,
  firstIndex: number,
  budgetMs = PIXEL_BUDGET_MS,
  clock: Clock = systemClock,
): Promise<PixelReading> {
  const t0 = clock.now();
  const deadline = t0 + budgetMs;
  let unread = 0;
  // The capture counts in the budget: on a starved host it alone took seconds (it waits its turn
  // among the device's captures, then up to two attempts of 3 s). One that comes late is left to
  // finish on its own; the areas all count unread, and the next read captures again.
  const givenUp = new AbortController();
  const shot = await within(device.screenshot({ scale: READ_SCALE, signal: givenUp.signal }), budgetMs, clock);
  const captureMs = Math.round(clock.now() - t0);
  if (shot === LATE) {
    givenUp.abort(); // not taken at all if it has not begun
    return { nodes: [], areas, ms: captureMs, captureMs, unread: areas.length, captureLate: true };
  }
  const pxPerPt = shot.width / device.screen().widthPt;
  const scale = Math.min(1, READ_SCALE / pxPerPt);
  const toPt = 1 / (pxPerPt * scale);
  // Each area is a process of its own: two at a time keep both cores busy without starving the rest.
  const perArea = await inPairs(areas, async (area) => {
    const region = {
      left: Math.max(0, Math.round(area.box.x * pxPerPt)),
      top: Math.max(0, Math.round(area.box.y * pxPerPt)),
      width: Math.max(1, Math.min(shot.width - Math.round(area.box.x * pxPerPt), Math.round(area.box.width * pxPerPt))),
      height: Math.max(1, Math.min(shot.height - Math.round(area.box.y * pxPerPt), Math.round(area.box.height * pxPerPt))),
    };
    if (clock.now() >= deadline) {
      unread++;
      return { area, lines: [] };
    }
    const read = await readArea(recogniser, await grayCrops(shot.png, region, scale), area.box.height, deadline, clock);
    if (!read.finished) unread++;
    return { area, lines: read.lines };
  });
  const nodes: TreeNode[] = [];
  for (const { area, lines } of perArea) {
    for (const line of lines) {
      nodes.push({
        index: firstIndex + nodes.length,
        parent: null,
        role: 'text',
        label: line.text,
        value: null,
        states: {},
        frame: { x: area.box.x + line.left * toPt, y: area.box.y + line.top * toPt, width: line.width * toPt, height: line.height * toPt },
        id: null,
        source: 'ocr',
        interactive: false,
        unnamed: false,
        offscreen: false,
        confidence: Math.round(line.conf) / 100,
      });
    }
  }
  return { nodes, areas, ms: Math.round((clock.now() - t0) * 10) / 10, captureMs, unread };
}

/** A line of text is at most this tall (points): an area no taller is read as one line if need be. */
const LINE_PT = 60;

/**
 * The ladder for one area: as a page in the likely polarity, then the other, then — for an area
 * no taller than a line — as a single line. The first rung that finds text answers.
 *
 * A run still going at the deadline is not stopped: the read answers without it, and the run
 * finishes in the background (within the engine's own timeout) into the recognition cache, so the
 * next read of the same screen goes on from there. Stopping it made every read under load start
 * over and stop at the same place, and the words past it were never read.
 */
async function readArea(
  recogniser: TextRecogniser,
  crops: { likely: Buffer; other: Buffer },
  heightPt: number,
  deadline: number,
  clock: Clock,
): Promise<{ lines: OcrLine[]; finished: boolean }> {
  const rungs: [Buffer, 'page' | 'line'][] = [
    [crops.likely, 'page'],
    [crops.other, 'page'],
    ...(heightPt <= LINE_PT
      ? ([
          [crops.likely, 'line'],
          [crops.other, 'line'],
        ] as [Buffer, 'line'][])
      : []),
  ];
  for (const [png, layout] of rungs) {
    const left = deadline - clock.now();
    if (left <= 0) return { lines: [], finished: false };
    // A recogniser too far behind to take the run leaves the area for the next read, like the budget.
    const run = recogniser.recognise(png, layout).catch((err: Error) => (err instanceof RecogniserBusyError ? LATE : Promise.reject(err)));
    const lines = await within(run, left, clock);
    if (lines === LATE) return { lines: [], finished: false };
    if (lines.length) return { lines, finished: true };
  }
  return { lines: [], finished: true };
}

/** Maps two at a time, keeping the order of the input. */
async function inPairs<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(...(await Promise.all(items.slice(i, i + 2).map(fn))));
  return out;
}
