// The ios-frames line protocol (native/ios-frames/PROTOCOL.md): `verb {json}\n` lines, and after a
// `frame` line exactly `bytes` bytes of image. This module reads and writes messages and turns a
// frame message into a boundary Frame; what the messages mean to the worker is frame-helper.ts's.
import { performance } from 'node:perf_hooks';
import type { Frame, Rect } from '../backend.js';

export const HELPER_PROTOCOL = 1;
export const MAX_LINE_BYTES = 65_536;
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export interface HelperMessage {
  verb: string;
  body: Record<string, unknown>;
  /** The image after a `frame` line. */
  payload?: Buffer;
}

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

export function encodeCommand(verb: string, body: Record<string, unknown> = {}): string {
  return `${verb} ${JSON.stringify(body)}\n`;
}

/** Reassembles messages from stdout chunks, whatever their boundaries. */
export class MessageReader {
  private buf: Buffer = Buffer.alloc(0);
  private frame: { body: Record<string, unknown>; bytes: number } | undefined;
  private broken = false;

  constructor(
    private readonly onMessage: (m: HelperMessage) => void,
    private readonly onError: (e: ProtocolError) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    try {
      this.drain();
    } catch (err) {
      this.broken = true;
      this.onError(err as ProtocolError);
    }
  }

  private drain(): void {
    for (;;) {
      if (this.frame) {
        if (this.buf.length < this.frame.bytes) return;
        const payload = Buffer.from(this.buf.subarray(0, this.frame.bytes));
        this.buf = this.buf.subarray(this.frame.bytes);
        const { body } = this.frame;
        this.frame = undefined;
        this.onMessage({ verb: 'frame', body, payload });
        continue;
      }
      const nl = this.buf.indexOf(10);
      if (nl < 0) {
        if (this.buf.length > MAX_LINE_BYTES) throw new ProtocolError(`a line longer than ${MAX_LINE_BYTES} bytes`);
        return;
      }
      if (nl > MAX_LINE_BYTES) throw new ProtocolError(`a line longer than ${MAX_LINE_BYTES} bytes`);
      const line = this.buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      this.buf = this.buf.subarray(nl + 1);
      if (line.trim() === '') continue;
      const { verb, body } = parseLine(line);
      if (verb === 'frame') {
        const bytes = body.bytes;
        if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0 || bytes > MAX_FRAME_BYTES) {
          throw new ProtocolError(`a frame announcing ${JSON.stringify(bytes)} bytes (expected an integer from 0 to ${MAX_FRAME_BYTES})`);
        }
        this.frame = { body, bytes };
        continue;
      }
      this.onMessage({ verb, body });
    }
  }
}

function parseLine(line: string): { verb: string; body: Record<string, unknown> } {
  const m = /^([a-z][a-z_]*) (\{.*\})$/.exec(line);
  if (!m) throw new ProtocolError(`a line that is not \`verb {json}\`: ${JSON.stringify(line.slice(0, 80))}`);
  let body: unknown;
  try {
    body = JSON.parse(m[2]!);
  } catch (err) {
    throw new ProtocolError(`a \`${m[1]}\` line whose JSON does not parse (${(err as Error).message})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProtocolError(`a \`${m[1]}\` line whose body is not an object`);
  return { verb: m[1]!, body: body as Record<string, unknown> };
}

/** A frame with the rectangles that changed since the last one, in points. */
export interface DamagedFrame extends Frame {
  damage: Rect[];
}

/** A `frame` message as a boundary Frame; damage from frame pixels to points. Null without a size. */
export function toFrame(m: HelperMessage, widthPt: number): DamagedFrame | null {
  const b = m.body;
  const width = Number(b.width);
  const height = Number(b.height);
  if (!(width > 0 && height > 0) || !m.payload) return null;
  const ppp = width / widthPt;
  const rects = (Array.isArray(b.damage) ? b.damage : []).filter(
    (r): r is number[] => Array.isArray(r) && r.length === 4 && r.every((n) => typeof n === 'number'),
  );
  return {
    data: m.payload,
    format: b.format === 'png' ? 'png' : 'jpeg',
    width,
    height,
    pixelsPerPoint: ppp,
    receivedAt: performance.now(),
    damage: rects.map(([x, y, w, h]) => ({ x: x! / ppp, y: y! / ppp, width: w! / ppp, height: h! / ppp })),
  };
}
