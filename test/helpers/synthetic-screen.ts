// Synthetic screens for perception edge cases: a gray canvas at the eyes' own grid size (48 × 104
// for a 393 × 852 pt phone), drawn with rectangles and list-like content, sent as raw RGBA frames
// through the same decode path as a real device's frames.
import type { Frame, ScreenSize } from '../../workers/devices/backend.js';
import { type Clock, systemClock } from '../../workers/clock.js';
import type { FrameSource } from '../../workers/perception/eyes.js';

export const W = 48;
export const H = 104;
export const SCREEN: ScreenSize = { widthPt: 393, heightPt: 852, scale: 3 };
/** Points per grid pixel, horizontally and vertically. */
export const PT_X = SCREEN.widthPt / W;
export const PT_Y = SCREEN.heightPt / H;

export class Canvas {
  readonly px: Uint8Array;

  constructor(fill = 242, px?: Uint8Array) {
    this.px = px ? new Uint8Array(px) : new Uint8Array(W * H).fill(fill);
  }

  clone(): Canvas {
    return new Canvas(0, this.px);
  }

  rect(x: number, y: number, w: number, h: number, v: number): this {
    for (let yy = Math.max(0, y); yy < Math.min(H, y + h); yy++) for (let xx = Math.max(0, x); xx < Math.min(W, x + w); xx++) this.px[yy * W + xx] = v;
    return this;
  }

  /** List rows from `y0` to `y1` (exclusive) showing the content from `offset` rows down. */
  list(y0: number, y1: number, offset: number): this {
    for (let y = y0; y < y1; y++) {
      const row = y - y0 + offset;
      for (let x = 0; x < W; x++) this.px[y * W + x] = listPixel(x, row);
    }
    return this;
  }

  /** Multiplies every pixel by k (a translucent black layer), except inside the box. */
  dim(k: number, except?: { x: number; y: number; w: number; h: number }): this {
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (except && x >= except.x && x < except.x + except.w && y >= except.y && y < except.y + except.h) continue;
        this.px[y * W + x] = Math.round(this.px[y * W + x]! * k);
      }
    }
    return this;
  }

  /** Content moved left by dx grid pixels (what a push does), the gap filled with `fill`. */
  shiftLeft(dx: number, y0: number, y1: number, incoming: Canvas): this {
    const out = this.clone();
    for (let y = y0; y < y1; y++) {
      for (let x = 0; x < W; x++) {
        const src = x + dx;
        out.px[y * W + x] = src < W ? this.px[y * W + src]! : incoming.px[y * W + (src - W)]!;
      }
    }
    this.px.set(out.px);
    return this;
  }
}

/** A list that does not repeat: rows of "text" whose widths and shades vary with a hash of the row. */
function listPixel(x: number, row: number): number {
  const item = Math.floor(row / 9);
  const inItem = ((row % 9) + 9) % 9;
  const h = hash(item);
  if (inItem === 8) return 200; // separator
  if (inItem < 2 || inItem > 6) return 255;
  const textEnd = 8 + (h % 34);
  if (x < 3 || x > textEnd) return 255;
  return 60 + ((h >> 6) % 90) + (inItem === 4 ? 40 : 0) + ((x * 7 + item) % 3) * 10;
}

function hash(n: number): number {
  let x = (n + 0x9e37) * 2654435761;
  x ^= x >>> 15;
  return Math.abs(x | 0);
}

/**
 * A frame source that sends what it is shown, timed by the caller. While `stalled`, what it is
 * shown changes the screen without sending a frame (a starved renderer); a probe sees the screen.
 */
export class SyntheticDevice implements FrameSource {
  /** Frames are stamped on this clock (a virtual one in the timing tests). */
  constructor(private readonly clock: Pick<Clock, 'now'> = systemClock) {}

  private readonly listeners = new Set<(f: Frame) => void>();
  private current: Canvas | undefined;
  sent = 0;
  probes = 0;
  stalled = false;

  screen(): ScreenSize {
    return SCREEN;
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  show(c: Canvas): void {
    this.current = c;
    if (this.stalled) return;
    const frame = frameOf(c, this.clock.now());
    this.sent++;
    for (const l of this.listeners) l(frame);
  }

  async probe(): Promise<Frame> {
    this.probes++;
    if (!this.current) throw new Error('nothing on screen yet');
    return frameOf(this.current, this.clock.now());
  }
}

function frameOf(c: Canvas, receivedAt: number): Frame {
  const data = Buffer.alloc(W * H * 4);
  for (let i = 0; i < c.px.length; i++) {
    data[i * 4] = data[i * 4 + 1] = data[i * 4 + 2] = c.px[i]!;
    data[i * 4 + 3] = 255;
  }
  return { data, format: 'raw', width: W, height: H, pixelsPerPoint: W / SCREEN.widthPt, receivedAt };
}
