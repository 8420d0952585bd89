// The stream's parts that decide without a network: the cursor's arithmetic, and a subscriber's
// outbox — what waits while the socket is backed up, how frame-changes merge for a reader that
// fell behind, and the cut-off at the hard limit.
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { decodeCursor, encodeCursor } from '../../server/domain/streams/cursor.js';
import { mergeChanges, Outbox, type OutboxSocket } from '../../server/domain/streams/outbox.js';

type Event = Schemas['SessionEvent'];

/** A socket whose writes complete only when the test says so (a reader that stopped reading). */
class HeldSocket implements OutboxSocket {
  sent: Event[] = [];
  pending: (() => void)[] = [];
  closed: { code: number; reason: string } | undefined;
  send(data: string, cb: () => void): void {
    this.sent.push(JSON.parse(data));
    this.pending.push(cb);
  }
  close(code: number, reason: string): void {
    this.closed = { code, reason };
  }
  drain(): void {
    const p = this.pending;
    this.pending = [];
    for (const cb of p) cb();
  }
}

let seq = 0;
const change = (frame: number, region: Schemas['Box'], fraction = 0.1): Schemas['FrameChangeEvent'] => ({
  type: 'frame-change',
  seq: ++seq,
  at: new Date().toISOString(),
  frame: { seq: frame, at: new Date().toISOString() },
  since: frame - 1,
  fraction,
  regions: [region],
  coalesced: 1,
});
const settled = (frame: number): Event => ({ type: 'settled', seq: ++seq, at: new Date().toISOString(), frame: { seq: frame, at: new Date().toISOString() } });
const box = (x: number, y: number, w = 10, h = 10) => ({ x, y, width: w, height: h });

describe('the stream cursor', () => {
  it('orders session changes above device events, and decodes what it encodes', () => {
    const a = encodeCursor({ s: 3, d: 4_000_000 });
    const b = encodeCursor({ s: 4, d: 0 });
    expect(b).toBeGreaterThan(a);
    expect(encodeCursor({ s: 3, d: 4_000_001 })).toBeGreaterThan(a);
    expect(decodeCursor(a)).toEqual({ s: 3, d: 4_000_000 });
    expect(Number.isSafeInteger(encodeCursor({ s: 2 ** 21 - 1, d: 2 ** 32 - 1 }))).toBe(true);
  });
});

describe('a subscriber outbox', () => {
  it('sends at once while the socket keeps up, in order', () => {
    const socket = new HeldSocket();
    const out = new Outbox(socket, { inflightBytes: 1_000_000, coalesceAt: 4, hardLimit: 10 });
    const events = [change(2, box(0, 0)), settled(2), change(3, box(50, 50))];
    for (const e of events) out.push(e);
    expect(socket.sent).toEqual(events);
    expect(out.backlog).toBe(0);
  });

  it('holds events while the socket is backed up, merges frame-changes past the coalescing mark, and sends the rest when it drains', () => {
    const socket = new HeldSocket();
    const out = new Outbox(socket, { inflightBytes: 1, coalesceAt: 3, hardLimit: 100 });
    out.push(change(2, box(0, 0))); // sent: the socket takes the first
    const waiting = [change(3, box(0, 0)), settled(3), change(4, box(100, 100)), change(5, box(105, 105), 0.3), change(6, box(200, 0), 0.05)];
    for (const e of waiting) out.push(e);
    expect(socket.sent).toHaveLength(1);
    expect(out.backlog).toBe(3); // frame 3, the settle, and frames 4–6 as one
    expect(out.merged).toBe(2);
    socket.drain();
    socket.drain();
    socket.drain();
    socket.drain();
    const merged = socket.sent.at(-1) as Schemas['FrameChangeEvent'];
    expect(socket.sent.map((e) => e.type)).toEqual(['frame-change', 'frame-change', 'settled', 'frame-change']);
    expect(merged).toMatchObject({ since: 3, frame: { seq: 6 }, coalesced: 3, fraction: 0.3, seq: waiting.at(-1)!.seq });
    // The overlapping boxes of frames 4 and 5 became one; frame 6's stands apart.
    expect(merged.regions).toHaveLength(2);
    expect(merged.regions).toContainEqual({ x: 100, y: 100, width: 15, height: 15 });
  });

  it('never merges across another event, and cuts off a reader whose backlog passes the hard limit', () => {
    const socket = new HeldSocket();
    let cut = 0;
    const out = new Outbox(socket, { inflightBytes: 1, coalesceAt: 2, hardLimit: 5 }, () => cut++);
    out.push(change(2, box(0, 0)));
    for (let f = 3; f < 20 && !socket.closed; f++) out.push(f % 2 ? settled(f) : change(f, box(0, 0)));
    expect(socket.closed).toEqual({ code: 4008, reason: 'SLOW_CONSUMER' });
    expect(cut).toBe(1);
    expect(out.merged).toBe(0);
    out.push(settled(99)); // after the cut-off, nothing more is taken
    expect(out.backlog).toBe(0);
  });

  it('ends the stream only after everything waiting has gone out', () => {
    const socket = new HeldSocket();
    const out = new Outbox(socket, { inflightBytes: 1, coalesceAt: 10, hardLimit: 10 });
    out.push(settled(1));
    out.push(settled(2));
    out.end(1000, 'SESSION_ENDED');
    expect(socket.closed).toBeUndefined();
    socket.drain();
    socket.drain();
    expect(socket.sent).toHaveLength(2);
    expect(socket.closed).toEqual({ code: 1000, reason: 'SESSION_ENDED' });
  });

  it('merges as a union: the regions of both, the larger share, the first baseline', () => {
    const a = change(10, box(0, 0, 20, 20), 0.2);
    const b = change(11, box(10, 10, 20, 20), 0.1);
    expect(mergeChanges(a, b)).toMatchObject({ since: 9, frame: { seq: 11 }, fraction: 0.2, coalesced: 2, regions: [{ x: 0, y: 0, width: 30, height: 30 }] });
  });
});
