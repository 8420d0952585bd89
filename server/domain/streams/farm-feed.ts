// A gateway's reader of the farm's event log: woken by NOTIFY (and every few seconds regardless,
// since a notification can be lost while the listener reconnects), it reads the rows after the
// last it delivered and hands them, presented once, to every farm-stream subscriber here.
// seq comes from a sequence, so a row can commit after a later one: a hole is waited for briefly
// before it is given up as a rolled-back transaction's, and rows are delivered in seq order.
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import type { Database } from '../../db/database.js';
import { farmEventBounds, farmEventsAfter, type FarmEventRow } from '../../db/repositories/farm-events.js';

export type FarmEvent = Schemas['FarmEvent'];
/** A change as subscribers get it, with the team it belongs to (null: the farm's own). */
export interface Presented {
  row: FarmEventRow;
  event: FarmEvent;
  json: string;
}
/** Turns a log row into the event with the thing's current state; undefined when it is gone. */
export type Presenter = (row: FarmEventRow) => Promise<FarmEvent | undefined>;

const HOLE_WAIT_MS = 1000;
const RETRY_MS = 100;
const SAFETY_POLL_MS = 5000;
const BATCH = 500;

export class FarmFeed {
  private last = 0;
  private holeSince: number | undefined;
  private pulling: Promise<void> | undefined;
  private again = false;
  private readonly listeners = new Set<(events: Presented[]) => void>();
  private unlisten: (() => Promise<void>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly present: Presenter,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.last = (await farmEventBounds(this.db)).newest;
    this.unlisten = await this.db.listen('sf_farm', () => this.pull());
    this.db.onReconnect(() => this.pull());
    this.timer = setInterval(() => this.pull(), SAFETY_POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.unlisten?.();
  }

  /** The newest seq delivered to subscribers: a snapshot taken now covers everything up to it. */
  get delivered(): number {
    return this.last;
  }

  subscribe(fn: (events: Presented[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Rows after `after` up to what has been delivered, presented; `oldest` null when none is kept. */
  async backlog(after: number): Promise<{ events: Presented[]; oldest: number | null }> {
    const { oldest } = await farmEventBounds(this.db);
    const rows: FarmEventRow[] = [];
    for (let from = after; ; ) {
      const batch = (await farmEventsAfter(this.db, from, BATCH)).filter((r) => r.seq <= this.last);
      rows.push(...batch);
      if (batch.length < BATCH) break;
      from = batch.at(-1)!.seq;
    }
    // State, not history: each thing once, at its last change.
    const lastOf = new Map(rows.map((r) => [`${r.kind}:${r.subject}`, r]));
    return { events: await this.presentAll([...lastOf.values()].sort((a, b) => a.seq - b.seq)), oldest };
  }

  private pull(): void {
    if (this.stopped) return;
    if (this.pulling) {
      this.again = true;
      return;
    }
    this.pulling = this.pullOnce()
      .catch((err: unknown) => this.logger.warn({ err }, 'could not read the farm event log; will retry'))
      .finally(() => {
        this.pulling = undefined;
        if (this.again) {
          this.again = false;
          this.pull();
        }
      });
  }

  private async pullOnce(): Promise<void> {
    const rows = await farmEventsAfter(this.db, this.last, BATCH);
    const ready: FarmEventRow[] = [];
    let expected = this.last + 1;
    for (const r of rows) {
      if (r.seq !== expected) {
        this.holeSince ??= Date.now();
        if (Date.now() - this.holeSince < HOLE_WAIT_MS) {
          setTimeout(() => this.pull(), RETRY_MS).unref();
          break;
        }
      }
      this.holeSince = undefined;
      ready.push(r);
      expected = r.seq + 1;
    }
    if (ready.length === 0) return;
    const events = await this.presentAll(ready);
    this.last = ready.at(-1)!.seq;
    for (const l of this.listeners) l(events);
    if (rows.length === BATCH) this.again = true;
  }

  private async presentAll(rows: FarmEventRow[]): Promise<Presented[]> {
    const out: Presented[] = [];
    for (const row of rows) {
      const event = await this.present(row);
      if (event) out.push({ row, event, json: JSON.stringify(event) });
    }
    return out;
  }
}
