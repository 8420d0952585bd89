// The last minute of a device's frames, analysed, bounded in bytes; and the newest encoded frame,
// for `look`. Every frame is analysed once, in order, off the request path.
import type { Frame } from '../devices/backend.js';
import type { FineProfile, FrameAnalysis } from './analysis.js';

export interface FrameStoreOptions {
  retentionMs: number;
  budgetBytes: number;
}

const OVERHEAD_BYTES = 200;
/** What one analysed frame costs in memory, as the budget counts it. */
export const analysisBytes = (f: FrameAnalysis) => f.gray.byteLength + f.cells.byteLength + (f.fine?.gray.byteLength ?? 0) + OVERHEAD_BYTES;

export class FrameStore {
  private frames: FrameAnalysis[] = [];
  private bytes = 0;
  private encoded: Frame | undefined;
  private encodedAt: number | undefined;
  private encodedSeq: number | undefined;

  constructor(private readonly opts: FrameStoreOptions) {}

  add(analysis: FrameAnalysis, frame: Frame): void {
    this.frames.push(analysis);
    this.bytes += analysisBytes(analysis);
    this.encoded = frame;
    this.encodedAt = analysis.wallAt;
    this.encodedSeq = analysis.seq;
    const oldest = analysis.at - this.opts.retentionMs;
    while (this.frames.length > 1 && (this.frames[0]!.at < oldest || this.bytes > this.opts.budgetBytes)) {
      this.bytes -= analysisBytes(this.frames.shift()!);
    }
  }

  newest(): FrameAnalysis | undefined {
    return this.frames.at(-1);
  }

  /** The newest frame as the backend produced it, when (Date.now()), and its analysis's seq. */
  newestEncoded(): { frame: Frame; wallAt: number; seq: number } | undefined {
    return this.encoded && this.encodedAt !== undefined && this.encodedSeq !== undefined
      ? { frame: this.encoded, wallAt: this.encodedAt, seq: this.encodedSeq }
      : undefined;
  }

  /** Gives a kept frame its fine profile, counted in the budget like the rest of it. */
  attachFine(f: FrameAnalysis, fine: FineProfile): void {
    if (f.fine) return;
    f.fine = fine;
    if (this.frames.includes(f)) this.bytes += fine.gray.byteLength;
  }

  /** Frames that arrived within the last `ms` before the newest. */
  recent(ms: number): FrameAnalysis[] {
    const newest = this.newest();
    if (!newest) return [];
    const from = newest.at - ms;
    let i = this.frames.length;
    while (i > 0 && this.frames[i - 1]!.at >= from) i--;
    return this.frames.slice(i);
  }

  /** Frames with seq in [from, to], oldest first (those still kept). */
  range(from: number, to: number): FrameAnalysis[] {
    return this.frames.filter((f) => f.seq >= from && f.seq <= to);
  }

  /** Whether this analysis is one the store still keeps (frames leave oldest first, in seq order). */
  keeps(f: FrameAnalysis): boolean {
    const first = this.frames[0];
    return first !== undefined && f.seq >= first.seq && f.seq <= this.frames.at(-1)!.seq;
  }

  stats(): { frames: number; bytes: number; spanMs: number } {
    const first = this.frames[0];
    const last = this.frames.at(-1);
    return { frames: this.frames.length, bytes: this.bytes + (this.encoded?.data.byteLength ?? 0), spanMs: first && last ? last.at - first.at : 0 };
  }

  clear(): void {
    this.frames = [];
    this.bytes = 0;
  }
}
