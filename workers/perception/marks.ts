// Observers' marks: what an observer last saw. "Changed since" is always relative to a mark, never
// to the previous frame: a transition over in 700 ms is invisible to an observer that compares two
// consecutive frames a second later. A mark holds the analysis it refers to, so it never goes stale
// when the frame store moves on. Marks belong to one lease (epoch) and vanish with it.
import { randomBytes } from 'node:crypto';
import type { FrameAnalysis } from './analysis.js';

export interface Mark {
  id: string;
  epoch: number;
  frame: FrameAnalysis | undefined;
  takenWallAt: number;
}

const LIMIT = 500;

export class MarkBook {
  private readonly marks = new Map<string, Mark>();
  private readonly latest = new Map<number, Mark>();

  /**
   * A new mark, the lease's newest. `byId: false` is for a mark its taker holds itself (an action's
   * own "before"): its id is never handed out, so the book does not keep it by id — kept, the marks
   * of a long lease's actions held up to 500 analysed frames per device that nobody could ask for.
   */
  take(epoch: number, frame: FrameAnalysis | undefined, opts: { byId?: boolean } = {}): Mark {
    const mark: Mark = { id: `mk_${randomBytes(6).toString('hex')}`, epoch, frame, takenWallAt: Date.now() };
    if (opts.byId !== false) this.marks.set(mark.id, mark);
    this.latest.set(epoch, mark);
    if (this.marks.size > LIMIT) this.marks.delete(this.marks.keys().next().value!);
    return mark;
  }

  /** The mark, if it exists under this epoch. */
  get(id: string, epoch: number): Mark | undefined {
    // The lease's newest mark answers by id whoever took it: /changes names it when asked without one.
    const newest = this.latest.get(epoch);
    const mark = this.marks.get(id) ?? (newest?.id === id ? newest : undefined);
    return mark?.epoch === epoch ? mark : undefined;
  }

  latestOf(epoch: number): Mark | undefined {
    return this.latest.get(epoch);
  }

  get size(): number {
    return this.marks.size;
  }

  /** The analysed frames the marks refer to, each once. */
  frames(): Set<FrameAnalysis> {
    const out = new Set<FrameAnalysis>();
    for (const m of [...this.marks.values(), ...this.latest.values()]) if (m.frame) out.add(m.frame);
    return out;
  }

  /** A new lease: the previous one's marks mean nothing on this device any more. */
  forgetExcept(epoch: number): void {
    for (const [id, m] of this.marks) if (m.epoch !== epoch) this.marks.delete(id);
    for (const e of this.latest.keys()) if (e !== epoch) this.latest.delete(e);
  }
}
