// Memory written behind to the farm (Postgres, through the gateway; the worker holds no database
// credentials), and read from it when a worker first meets a team's app. Writes are batched, carry
// an id so a retry applies once, and are retried with backoff until the gateway acknowledges them:
// the action path never waits on the database, and nothing acknowledged is lost when it restarts.
// On shutdown the queue is flushed within a deadline.
//
// A write the gateway refuses for what it holds (VALIDATION_FAILED: the database would not store it;
// FORBIDDEN: this host no longer serves that team) is not retried: it would be refused again, and,
// first in line, it held back every write after it, for every app, for as long as the worker ran.
// It is dropped with its evidence in the log and counted; the writes behind it go on.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { storableDeep } from '../text/clip.js';
import { within } from '../within.js';

type Schemas = components['schemas'];
export type MemoryKey = Schemas['MemoryKey'];

export interface MemoryChannel {
  memory(msg: Schemas['WorkerMemoryWrite'] | Schemas['WorkerMemoryLoad'], timeoutMs: number): Promise<Schemas['GatewayMemoryReply']>;
}

interface Batch {
  id: string;
  key: MemoryKey;
  /** The app memory's generation these changes were learned in (see forgetting, below). */
  generation: number;
  screens: Map<string, Schemas['MemoryScreen']>;
  /** Known screens recognised again: the latest per screen (a newer one supersedes it). */
  confirmations: Map<string, Schemas['MemoryConfirmation']>;
  edges: Schemas['MemoryEdge'][];
  /** An open batch's edges by from, action and to: an edge taken again adds to its counts. */
  edgeIndex: Map<string, Schemas['MemoryEdge']>;
  escalations: Schemas['MemoryEscalation'][];
}

const FLUSH_EVERY_MS = 300;
const REQUEST_TIMEOUT_MS = 5000;
const MAX_BACKOFF_MS = 10_000;
/** Per message: the gateway's payload limit is far above this. */
const MAX_ITEMS = 200;
/**
 * Screens and confirmations per message: each may carry a vocabulary of 200 entries (tens of kB), and
 * the link's messages stop at 1 MiB by default.
 */
const MAX_SCREENS = 8;
/** Escalations an open batch holds while the gateway is away (the worker's app memory keeps 500 per app). */
const MAX_OPEN_ESCALATIONS = 1000;
/** Durations kept per edge (the contract's limit; the farm keeps the newest 16 too). */
const MAX_DURATIONS = 16;
/** Refusals about the write itself, not the moment: the same write would be refused again. */
const FINAL_REFUSALS = new Set(['VALIDATION_FAILED', 'FORBIDDEN', 'PROTOCOL_ERROR', 'MESSAGE_TOO_LARGE']);

/** The gateway answered no for this write and would again. */
class WriteRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export class MemorySync {
  /** Changes not yet sent, per app; sent batches are frozen so a retry is the same write. */
  private readonly open = new Map<string, Batch>();
  private readonly sending: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  private nextTryAt = 0;
  private flushing: Promise<void> | undefined;
  readonly counts = { written: 0, retried: 0, dropped: 0, escalationsLetGo: 0, loaded: 0, loadFailed: 0, forgotten: 0 };
  /** Called when the farm forgot an app since this generation was loaded: start it afresh. */
  onForgotten: ((key: MemoryKey, generation: number) => void) | undefined;

  constructor(
    private readonly channel: MemoryChannel,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  screen(key: MemoryKey, generation: number, s: Schemas['MemoryScreen']): void {
    this.batch(key, generation).screens.set(s.id, s);
  }

  /** A known screen recognised again (the caller throttles: see confirm-throttle.ts). */
  confirmation(key: MemoryKey, generation: number, c: Schemas['MemoryConfirmation']): void {
    this.batch(key, generation).confirmations.set(c.id, c);
  }

  edge(key: MemoryKey, generation: number, e: Schemas['MemoryEdge']): void {
    const b = this.batch(key, generation);
    const k = `${e.from}\u0000${e.action}\u0000${e.to}`;
    const same = b.edgeIndex.get(k);
    if (!same) {
      const copy = { ...e, durations: [...e.durations], kinds: { ...e.kinds } };
      b.edgeIndex.set(k, copy);
      b.edges.push(copy);
      return;
    }
    // The increments the gateway would add one after the other, added here first: the same totals,
    // the same 16 newest durations.
    same.count += e.count;
    same.verified += e.verified;
    same.durations = [...same.durations, ...e.durations].slice(-MAX_DURATIONS);
    for (const [kind, n] of Object.entries(e.kinds)) same.kinds[kind] = (same.kinds[kind] ?? 0) + n;
  }

  escalation(key: MemoryKey, generation: number, e: Schemas['MemoryEscalation']): void {
    const b = this.batch(key, generation);
    b.escalations.push(e);
    // Escalations are events, not state: nothing merges them, so an outage long enough would grow
    // the open batch without end. The newest are kept; what is let go is counted and said once.
    if (b.escalations.length > MAX_OPEN_ESCALATIONS) {
      b.escalations.shift();
      this.counts.escalationsLetGo++;
      if (this.counts.escalationsLetGo === 1)
        this.logger.warn(
          { app: key.app, kept: MAX_OPEN_ESCALATIONS },
          'the gateway has been away long enough that older escalations waiting to be written are let go',
        );
    }
  }

  get pending(): number {
    return this.open.size + this.sending.length;
  }

  async load(key: MemoryKey): Promise<{ screens: Schemas['MemoryScreen'][]; edges: Schemas['MemoryEdge'][]; generation: number }> {
    const reply = await this.channel.memory({ type: 'memory-load', id: randomUUID(), key }, REQUEST_TIMEOUT_MS);
    if (!reply.ok) throw new Error(`memory load refused: ${reply.error?.code} ${reply.error?.message}`);
    this.counts.loaded++;
    return { screens: reply.screens ?? [], edges: reply.edges ?? [], generation: reply.generation ?? 0 };
  }

  /** Sends what is queued; concurrent callers share one pass. */
  flush(): Promise<void> {
    return (this.flushing ??= this.send().finally(() => (this.flushing = undefined)));
  }

  /** Flushes until nothing is left or the deadline passes (shutdown). */
  async drain(deadlineMs: number): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    this.nextTryAt = 0;
    while (this.pending > 0 && Date.now() < until) {
      // A write the link has not answered is not waited on past the deadline (the link's own timeout
      // is as long as the whole drain): it stays pending, unacknowledged, and shutdown goes on.
      await within(this.flush(), Math.max(0, until - Date.now()));
      if (this.pending > 0) await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, until - Date.now()))));
      this.nextTryAt = 0;
    }
    if (this.pending > 0) this.logger.warn({ batches: this.pending }, 'memory not written before shutdown');
    return this.pending === 0;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private batch(key: MemoryKey, generation: number): Batch {
    const k = `${key.team}\u0000${key.platform}\u0000${key.app}\u0000${generation}`;
    let b = this.open.get(k);
    if (!b)
      this.open.set(
        k,
        (b = { id: randomUUID(), key, generation, screens: new Map(), confirmations: new Map(), edges: [], edgeIndex: new Map(), escalations: [] }),
      );
    return b;
  }

  private async send(): Promise<void> {
    if (Date.now() < this.nextTryAt) return;
    for (;;) {
      // What is open is frozen into batches (a retry must be the same write) only once every batch
      // before it is acknowledged. While the gateway is away, changes gather in the open batch, where
      // a screen seen again or an edge taken again takes no more room: a frozen batch per try grew
      // the queue for as long as the outage lasted.
      if (!this.sending.length) {
        for (const [k, b] of this.open) {
          this.open.delete(k);
          this.sending.push(...split(b));
        }
      }
      const b = this.sending[0];
      if (!b) return;
      try {
        // Text from pages nobody here wrote, made fit to store (NUL and half surrogate pairs), so a
        // label cannot get a whole batch refused.
        const write = storableDeep({
          type: 'memory-write' as const,
          id: b.id,
          key: b.key,
          generation: b.generation,
          screens: [...b.screens.values()],
          confirmations: [...b.confirmations.values()],
          edges: b.edges,
          escalations: b.escalations,
        });
        const reply = await this.channel.memory(write, REQUEST_TIMEOUT_MS);
        if (!reply.ok) {
          const code = reply.error?.code ?? 'INTERNAL';
          const message = reply.error?.message ?? 'refused without a reason';
          throw FINAL_REFUSALS.has(code) ? new WriteRefused(code, message) : new Error(`${code}: ${message}`);
        }
        this.sending.shift();
        if (reply.forgotten) {
          this.counts.forgotten++;
          this.logger.info({ app: b.key.app, generation: b.generation }, 'the farm forgot this app; starting its memory afresh');
          this.onForgotten?.(b.key, b.generation);
        }
        this.counts.written++;
        this.backoffMs = 0;
      } catch (err) {
        if (err instanceof WriteRefused) {
          this.sending.shift();
          this.counts.dropped++;
          this.logger.warn(
            {
              code: err.code,
              err: err.message,
              batch: b.id,
              team: b.key.team,
              app: b.key.app,
              screens: b.screens.size,
              confirmations: b.confirmations.size,
              edges: b.edges.length,
              escalations: b.escalations.length,
            },
            'memory write refused by the gateway for what it holds; dropped, not retried',
          );
          continue;
        }
        this.counts.retried++;
        this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 500);
        this.nextTryAt = Date.now() + this.backoffMs;
        this.logger.debug({ err: (err as Error).message, retryInMs: this.backoffMs }, 'memory write not acknowledged; kept for a retry');
        return;
      }
    }
  }
}

/** A batch too large for one message, as several (each with its own id, fixed from now on). */
function split(b: Batch): Batch[] {
  const screens = [...b.screens.values()];
  const confirmations = [...b.confirmations.values()];
  const parts = Math.max(
    1,
    Math.ceil(screens.length / MAX_SCREENS),
    Math.ceil(confirmations.length / MAX_SCREENS),
    Math.ceil(b.edges.length / MAX_ITEMS),
    Math.ceil(b.escalations.length / MAX_ITEMS),
  );
  if (parts === 1) return [b];
  const out: Batch[] = [];
  for (let p = 0; p < parts; p++) {
    const slice = <T>(xs: T[], size: number) => xs.slice(p * size, (p + 1) * size);
    out.push({
      id: randomUUID(),
      key: b.key,
      generation: b.generation,
      screens: new Map(slice(screens, MAX_SCREENS).map((s) => [s.id, s])),
      confirmations: new Map(slice(confirmations, MAX_SCREENS).map((c) => [c.id, c])),
      edges: slice(b.edges, MAX_ITEMS),
      edgeIndex: new Map(),
      escalations: slice(b.escalations, MAX_ITEMS),
    });
  }
  return out;
}
