// One dashboard's view of the farm: a snapshot, then every change it may see, in the farm's own
// seq order. Resuming with since sends each thing changed meanwhile once, in its newest state; a
// cursor older than the log gets a gap and a fresh snapshot instead.
import type { Schemas } from '../../../openapi/contract.js';
import type { FarmEventRow } from '../../db/repositories/farm-events.js';
import type { FarmFeed, Presented } from './farm-feed.js';
import type { Outbox } from './outbox.js';

export type Snapshot = Omit<Schemas['FarmSnapshotEvent'], 'seq' | 'at' | 'type'>;

export interface FarmStreamDeps {
  feed: FarmFeed;
  /** Whether this subscriber may see a change (another team's session is not shown). */
  visible(row: FarmEventRow): boolean;
  snapshot(): Promise<Snapshot>;
  onError(err: unknown): void;
}

export class FarmStream {
  private cursor = 0;
  private held: Presented[] | undefined = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: FarmStreamDeps,
    private readonly out: Outbox,
  ) {}

  start(since: number | undefined): void {
    this.unsubscribe = this.deps.feed.subscribe((events) => (this.held ? this.held.push(...events) : this.deliver(events)));
    this.catchUp(since).then(
      () => {
        const held = this.held ?? [];
        this.held = undefined;
        this.deliver(held);
      },
      (err: unknown) => {
        this.deps.onError(err);
        this.out.end(1011, 'INTERNAL');
      },
    );
  }

  close(): void {
    this.unsubscribe?.();
    this.out.stop();
  }

  private async catchUp(since: number | undefined): Promise<void> {
    if (since !== undefined) {
      const { events, oldest } = await this.deps.feed.backlog(since);
      const kept = oldest === null || oldest <= since + 1 || since >= this.deps.feed.delivered;
      if (kept) {
        this.cursor = since;
        this.deliver(events);
        this.cursor = Math.max(this.cursor, this.deps.feed.delivered);
        return;
      }
      this.out.push({ type: 'gap', seq: oldest - 1, at: new Date().toISOString(), missed: oldest - since - 1, oldest });
    }
    const seq = this.deps.feed.delivered;
    this.out.push({ type: 'snapshot', seq, at: new Date().toISOString(), ...(await this.deps.snapshot()) });
    this.cursor = seq;
  }

  private deliver(events: Presented[]): void {
    for (const e of events) {
      if (e.row.seq <= this.cursor) continue;
      this.cursor = e.row.seq;
      if (this.deps.visible(e.row)) this.out.push(e.event, e.json);
    }
  }
}
