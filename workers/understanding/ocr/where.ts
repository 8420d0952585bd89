// Where the tree leaves something unsaid: the parts of the screen that show something (their
// pixels differ from the background) yet no element of the tree accounts for — a canvas, a game,
// a picture with words in it, a control drawn without accessibility. Text recognition runs there,
// not on the whole screen: it costs a fraction of the time, and where the tree speaks, the tree's
// words stand. An empty tree means the whole screen.
import type { Rect, ScreenSize, TreeNode } from '../../devices/backend.js';

export interface Gray {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface OcrArea {
  box: Rect;
  why: 'empty-tree' | 'uncovered' | 'contradicted';
}

/** An element this large is a container (a page, a scroll view): what is inside it is not accounted for by it. */
const CONTAINER_SHARE = 0.35;
/** Gray levels from the background that count as something drawn. */
const INK = 12;
/** The smallest area worth reading, in grid pixels (about 16 × 16 pt on a phone). */
const MIN_PIXELS = 4;
const MAX_AREAS = 8;
/** An area this large (grid pixels, about a fifth of a phone screen) is looked into for its parts. */
const LARGE_PIXELS = 400;
const MARGIN_PT = 6;

export function areasToRead(nodes: readonly TreeNode[], screen: ScreenSize, gray: Gray): OcrArea[] {
  const screenArea = screen.widthPt * screen.heightPt;
  const speaking = nodes.filter(
    (n) =>
      !n.offscreen &&
      n.frame.width > 0 &&
      n.frame.height > 0 &&
      n.frame.width * n.frame.height < CONTAINER_SHARE * screenArea &&
      (n.label || n.value || n.interactive || n.role === 'image'),
  );
  if (speaking.length === 0) return [{ box: { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt }, why: 'empty-tree' }];
  if (contradicted(speaking, screen, gray)) return [{ box: { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt }, why: 'contradicted' }];
  const sx = gray.width / screen.widthPt;
  const sy = gray.height / screen.heightPt;
  const covered = new Uint8Array(gray.width * gray.height);
  for (const n of speaking) {
    const x0 = Math.max(0, Math.floor(n.frame.x * sx) - 1);
    const y0 = Math.max(0, Math.floor(n.frame.y * sy) - 1);
    const x1 = Math.min(gray.width - 1, Math.ceil((n.frame.x + n.frame.width) * sx));
    const y1 = Math.min(gray.height - 1, Math.ceil((n.frame.y + n.frame.height) * sy));
    for (let y = y0; y <= y1; y++) covered.fill(1, y * gray.width + x0, y * gray.width + x1 + 1);
  }
  const whole = { x0: 0, y0: 0, x1: gray.width - 1, y1: gray.height - 1, pixels: 0 };
  const found = inkWithin(whole, covered, gray).flatMap((c) => (c.pixels > LARGE_PIXELS ? refine(c, covered, gray) : [c]));
  return mergeOverlapping(found.map((c) => toPoints(c, sx, sy, screen)))
    .sort((a, b) => b.width * b.height - a.width * a.height)
    .slice(0, MAX_AREAS)
    .map((box) => ({ box, why: 'uncovered' as const }));
}

/** Gray levels of spread inside an element's box that show something is drawn there. */
const SHOWN_SPREAD = 12;

/**
 * The tree describes a screen the pixels do not show: most of its labelled elements (at least
 * three) sit where nothing at all is drawn — a tree read stale, or text hidden from the eye but
 * not from accessibility. Then the whole screen is read from pixels, and the read says why.
 */
export function contradicted(nodes: readonly TreeNode[], screen: ScreenSize, gray: Gray): boolean {
  const labelled = nodes.filter(
    (n) =>
      n.label && !n.offscreen && !n.covered && n.frame.width >= 16 && n.frame.height >= 10 && n.frame.y >= 0 && n.frame.y + n.frame.height <= screen.heightPt,
  );
  if (labelled.length < 3) return false;
  const blank = labelled.filter((n) => spreadIn(n.frame, screen, gray) < SHOWN_SPREAD).length;
  return blank * 2 > labelled.length;
}

/** Gray spread over an element's box and one grid pixel around it: ink against its own background. */
function spreadIn(f: Rect, screen: ScreenSize, gray: Gray): number {
  const sx = gray.width / screen.widthPt;
  const sy = gray.height / screen.heightPt;
  let lo = 255;
  let hi = 0;
  for (let y = Math.max(0, Math.floor(f.y * sy) - 1); y < Math.min(gray.height, Math.ceil((f.y + f.height) * sy) + 1); y++) {
    for (let x = Math.max(0, Math.floor(f.x * sx) - 1); x < Math.min(gray.width, Math.ceil((f.x + f.width) * sx) + 1); x++) {
      const v = gray.data[y * gray.width + x]!;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return hi - lo;
}

/** Something drawn: uncovered pixels unlike the background of the part looked at (its median). */
function inkWithin(part: Component, covered: Uint8Array, gray: Gray): Component[] {
  const values: number[] = [];
  for (let y = part.y0; y <= part.y1; y++)
    for (let x = part.x0; x <= part.x1; x++) if (!covered[y * gray.width + x]) values.push(gray.data[y * gray.width + x]!);
  if (values.length === 0) return [];
  const background = median(values);
  const ink = new Uint8Array(covered.length);
  for (let y = part.y0; y <= part.y1; y++) {
    for (let x = part.x0; x <= part.x1; x++) {
      const i = y * gray.width + x;
      if (!covered[i] && Math.abs(gray.data[i]! - background) > INK) ink[i] = 1;
    }
  }
  return components(ink, gray.width, gray.height).filter((c) => c.pixels >= MIN_PIXELS);
}

/**
 * A large drawn area (a canvas with its own background) is looked into once more against its own
 * background: the words and buttons on it become areas of their own, each read with the right
 * polarity, where one crop of the whole would be read as a picture and give nothing.
 */
function refine(c: Component, covered: Uint8Array, gray: Gray): Component[] {
  const inner = inkWithin(c, covered, gray).filter((s) => s.pixels < c.pixels * 0.8);
  return inner.length ? inner : [c];
}

interface Component {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  pixels: number;
}

/** Connected ink (8-neighbours, bridging one-pixel gaps so the letters of a word join). */
function components(ink: Uint8Array, w: number, h: number): Component[] {
  const seen = new Uint8Array(ink.length);
  const out: Component[] = [];
  for (let start = 0; start < ink.length; start++) {
    if (!ink[start] || seen[start]) continue;
    const c: Component = { x0: w, y0: h, x1: 0, y1: 0, pixels: 0 };
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i / w) | 0;
      c.pixels++;
      c.x0 = Math.min(c.x0, x);
      c.y0 = Math.min(c.y0, y);
      c.x1 = Math.max(c.x1, x);
      c.y1 = Math.max(c.y1, y);
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const j = ny * w + nx;
          if (ink[j] && !seen[j]) {
            seen[j] = 1;
            stack.push(j);
          }
        }
      }
    }
    out.push(c);
  }
  return out;
}

function toPoints(c: Component, sx: number, sy: number, screen: ScreenSize): Rect {
  const x = Math.max(0, c.x0 / sx - MARGIN_PT);
  const y = Math.max(0, c.y0 / sy - MARGIN_PT);
  const right = Math.min(screen.widthPt, (c.x1 + 1) / sx + MARGIN_PT);
  const bottom = Math.min(screen.heightPt, (c.y1 + 1) / sy + MARGIN_PT);
  return { x, y, width: right - x, height: bottom - y };
}

function mergeOverlapping(boxes: Rect[]): Rect[] {
  const out = [...boxes];
  for (let merged = true; merged; ) {
    merged = false;
    for (let i = 0; i < out.length && !merged; i++) {
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i]!;
        const b = out[j]!;
        if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) {
          const x = Math.min(a.x, b.x);
          const y = Math.min(a.y, b.y);
          out[i] = { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
          out.splice(j, 1);
          merged = true;
          break;
        }
      }
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}
