// One subscriber's way out: events wait here while the socket is backed up, frame-changes merge
// when the backlog grows, and a subscriber whose backlog passes the hard limit is closed with
// 4008 SLOW_CONSUMER (it may resume with since). Nothing here waits on the subscriber: pushing is
// O(1), so one reader that stopped reading costs the others nothing.
import type { Schemas } from '../../../openapi/contract.js';

type Event = Schemas['SessionEvent'] | Schemas['FarmEvent'];
type FrameChange = Schemas['FrameChangeEvent'];

/** The part of a WebSocket an outbox uses. */
export interface OutboxSocket {
  send(data: string, cb: (err?: Error) => void): void;
  close(code: number, reason: string): void;
}

export interface OutboxLimits {
  /** Bytes handed to the socket and not yet written out before events start waiting here. */
  inflightBytes: number;
  /** Waiting events beyond which adjacent frame-changes merge. */
  coalesceAt: number;
  /** Waiting events beyond which the subscriber is cut off. */
  hardLimit: number;
}

export const OUTBOX_LIMITS: OutboxLimits = { inflightBytes: 256 * 1024, coalesceAt: 64, hardLimit: 1000 };

export const SLOW_CONSUMER = 4008;

export class Outbox {
  /** Events to send, each with its JSON when the sender had it already (shared by subscribers). */
  private readonly waiting: { event: Event; json?: string }[] = [];
  private inflight = 0;
  private closed = false;
  private ending: { code: number; reason: string } | undefined;
  /** Frame-changes merged into others, over this subscriber's life. */
  merged = 0;

  constructor(
    private readonly socket: OutboxSocket,
    private readonly limits: OutboxLimits = OUTBOX_LIMITS,
    private readonly onCutOff: () => void = () => undefined,
  ) {}

  get backlog(): number {
    return this.waiting.length;
  }

  push(event: Event, json?: string): void {
    if (this.closed) return;
    const tail = this.waiting.at(-1)?.event;
    if (event.type === 'frame-change' && tail?.type === 'frame-change' && this.waiting.length >= this.limits.coalesceAt) {
      this.waiting[this.waiting.length - 1] = { event: mergeChanges(tail as FrameChange, event as FrameChange) };
      this.merged++;
      return;
    }
    this.waiting.push(json === undefined ? { event } : { event, json });
    if (this.waiting.length > this.limits.hardLimit) return this.cutOff();
    this.pump();
  }

  /** Closes the socket once everything waiting has been handed to it. */
  end(code: number, reason: string): void {
    this.ending ??= { code, reason };
    this.pump();
  }

  /** Stops sending; what waits is dropped (the subscriber resumes from its cursor). */
  stop(): void {
    this.closed = true;
    this.waiting.length = 0;
  }

  private pump(): void {
    while (!this.closed && this.waiting.length > 0 && this.inflight < this.limits.inflightBytes) {
      const next = this.waiting.shift()!;
      const data = next.json ?? JSON.stringify(next.event);
      this.inflight += data.length;
      this.socket.send(data, () => {
        this.inflight -= data.length;
        this.pump();
      });
    }
    if (this.ending && !this.closed && this.waiting.length === 0) {
      this.closed = true;
      this.socket.close(this.ending.code, this.ending.reason);
    }
  }

  private cutOff(): void {
    this.stop();
    this.socket.close(SLOW_CONSUMER, 'SLOW_CONSUMER');
    this.onCutOff();
  }
}

/** Two frame-changes as one: from the first's baseline to the second's frame. */
export function mergeChanges(a: FrameChange, b: FrameChange): FrameChange {
  return {
    ...b,
    since: a.since,
    // The union of what changed; the share is at least the larger of the two (it cannot be told
    // exactly without the frames, which stay on the worker).
    fraction: Math.max(a.fraction, b.fraction),
    regions: unionBoxes([...b.regions, ...a.regions]).slice(0, 16),
    coalesced: a.coalesced + b.coalesced,
  };
}

type Box = Schemas['Box'];

function unionBoxes(boxes: Box[]): Box[] {
  const out: Box[] = [];
  for (const box of boxes) {
    let b = box;
    for (let i = out.length - 1; i >= 0; i--) {
      if (overlaps(out[i]!, b)) {
        b = cover(out[i]!, b);
        out.splice(i, 1);
      }
    }
    out.push(b);
  }
  return out;
}

const overlaps = (a: Box, b: Box) => a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height;

function cover(a: Box, b: Box): Box {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
