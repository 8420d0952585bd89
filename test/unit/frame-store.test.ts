// The frame store's two limits (the last 60 s, a byte budget per device), the newest encoded frame
// kept for `look`, and the bytes of fine profiles attached after a frame came in.
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../workers/devices/backend.js';
import { analyse, FINE_W, fineHeight, GRID_W, gridHeight, type FrameAnalysis } from '../../workers/perception/analysis.js';
import { FrameStore } from '../../workers/perception/frame-store.js';

const SCREEN = { widthPt: 393, heightPt: 852 };
const GH = gridHeight(SCREEN.widthPt, SCREEN.heightPt);
const frameAt = (seq: number, at: number): FrameAnalysis =>
  analyse(new Uint8Array(GRID_W * GH).fill(seq % 256), { seq, at, wallAt: 1_700_000_000_000 + at, ...SCREEN });
const encoded = (seq: number): Frame => ({ format: 'jpeg', data: Buffer.alloc(1000 + seq), width: 393, height: 852, pixelsPerPoint: 1, receivedAt: seq });
/** What the kept frames weigh, counted independently of the store. */
const weigh = (frames: FrameAnalysis[]) => frames.reduce((s, f) => s + f.gray.byteLength + f.cells.byteLength + (f.fine?.gray.byteLength ?? 0) + 200, 0);

describe('the frame store', () => {
  it('keeps the last 60 s of frames and lets older ones go', () => {
    const store = new FrameStore({ retentionMs: 60_000, budgetBytes: 64 << 20 });
    for (let i = 0; i <= 700; i++) store.add(frameAt(i + 1, i * 100), encoded(i + 1)); // 70 s at 10 fps
    const kept = store.range(0, Number.MAX_SAFE_INTEGER);
    expect(kept[0]!.at).toBe(10_000); // 70 s − 60 s
    expect(kept.at(-1)!.seq).toBe(701);
    expect(store.stats().spanMs).toBe(60_000);
    expect(store.stats().frames).toBe(601);
  });

  it('stays within its byte budget by letting the oldest go, and always keeps the newest', () => {
    const one = weigh([frameAt(1, 0)]);
    const store = new FrameStore({ retentionMs: 60_000, budgetBytes: one * 10 });
    for (let i = 1; i <= 50; i++) store.add(frameAt(i, i * 16), encoded(i));
    const kept = store.range(0, Number.MAX_SAFE_INTEGER);
    expect(kept.length).toBe(10);
    expect(kept[0]!.seq).toBe(41);
    // The budget counts the analyses; the newest encoded frame is reported on top of it.
    expect(store.stats().bytes).toBe(weigh(kept) + 1050);
    const tiny = new FrameStore({ retentionMs: 60_000, budgetBytes: 1 });
    tiny.add(frameAt(1, 0), encoded(1));
    tiny.add(frameAt(2, 16), encoded(2));
    expect(tiny.newest()!.seq).toBe(2);
    expect(tiny.stats().frames).toBe(1);
  });

  it('holds the newest encoded frame for look, named by its seq', () => {
    const store = new FrameStore({ retentionMs: 60_000, budgetBytes: 64 << 20 });
    expect(store.newestEncoded()).toBeUndefined();
    store.add(frameAt(1, 0), encoded(1));
    store.add(frameAt(2, 16), encoded(2));
    const e = store.newestEncoded()!;
    expect(e.seq).toBe(2);
    expect(e.frame.data.byteLength).toBe(1002);
    expect(e.wallAt).toBe(1_700_000_000_016);
  });

  it('counts a fine profile attached later, and gives its bytes back when the frame goes', () => {
    const store = new FrameStore({ retentionMs: 1000, budgetBytes: 64 << 20 });
    const first = frameAt(1, 0);
    store.add(first, encoded(1));
    const h = fineHeight(SCREEN.heightPt);
    store.attachFine(first, { w: FINE_W, h, gray: new Uint8Array(FINE_W * h) });
    store.attachFine(first, { w: FINE_W, h, gray: new Uint8Array(FINE_W * h) }); // once only
    expect(store.stats().bytes).toBe(weigh([first]) + 1001);
    expect(weigh([first]) - weigh([frameAt(9, 0)])).toBe(FINE_W * h);
    for (let i = 2; i <= 5; i++) store.add(frameAt(i, i * 600), encoded(i)); // the first ages out
    const kept = store.range(0, Number.MAX_SAFE_INTEGER);
    expect(kept.map((f) => f.seq)).not.toContain(1);
    expect(store.stats().bytes).toBe(weigh(kept) + 1005);
  });
});

describe('marks and the frames they hold', () => {
  it("keeps by id only the marks whose ids are handed out; the lease's newest answers by id whoever took it", async () => {
    const { MarkBook } = await import('../../workers/perception/marks.js');
    const book = new MarkBook();
    const given = book.take(1, frameAt(1, 0));
    for (let i = 2; i <= 600; i++) book.take(1, frameAt(i, i * 16), { byId: false }); // an action's own "before"
    expect(book.size).toBe(1); // 599 actions' marks left nothing behind
    expect(book.get(given.id, 1)).toBe(given);
    const newest = book.latestOf(1)!;
    expect(newest.frame!.seq).toBe(600);
    expect(book.get(newest.id, 1)).toBe(newest); // /changes names it; /wait can then ask for it
    expect(book.get(newest.id, 2)).toBeUndefined(); // another lease's
    expect([...book.frames()].map((f) => f.seq).sort((a, b) => a - b)).toEqual([1, 600]);
  });

  it('tells a frame it still keeps from one only a mark holds now', () => {
    const store = new FrameStore({ retentionMs: 1000, budgetBytes: 64 << 20 });
    const old = frameAt(1, 0);
    store.add(old, encoded(1));
    expect(store.keeps(old)).toBe(true);
    for (let i = 2; i <= 30; i++) store.add(frameAt(i, i * 100), encoded(i));
    expect(store.keeps(old)).toBe(false);
    expect(store.keeps(store.newest()!)).toBe(true);
  });
});
