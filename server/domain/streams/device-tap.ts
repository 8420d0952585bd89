// A gateway's reader of one session's device events: while any subscriber on this gateway watches
// the session, one long poll (events.read) runs against the worker, and what it brings is fanned
// out to every subscriber here. The newest events are kept so a subscriber resuming from a recent
// cursor is answered without asking the worker; older ones are fetched from the worker's log.
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { ApiError } from '../../errors.js';
import type { SessionPerception } from '../sessions/perception.js';

type DeviceEvent = Schemas['DeviceEvent'];

const POLL_WAIT_MS = 20_000;
const KEEP = 500;
const RETRY_MS = 500;

export interface Backlog {
  events: DeviceEvent[];
  /** Events asked for that the worker no longer keeps (0: none lost). */
  missed: number;
  /** The seq of the oldest event still kept. */
  oldest: number;
}

type Listener = (events: DeviceEvent[]) => void;

export class DeviceTap {
  private readonly listeners = new Set<Listener>();
  private kept: DeviceEvent[] = [];
  private last = -1;
  private primed: Promise<void> | undefined;
  private running = false;
  private stopped = false;

  constructor(
    private readonly row: SessionRow,
    private readonly perception: SessionPerception,
    private readonly logger: Logger,
    private readonly onIdle: () => void,
  ) {}

  /** Listens for new events; resolves once the tap knows where the device's log stands. */
  async attach(fn: Listener): Promise<() => void> {
    this.listeners.add(fn);
    this.primed ??= this.prime();
    await this.primed;
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) {
        this.stopped = true;
        this.onIdle();
      }
    };
  }

  /** The newest device event seq this tap has seen. */
  get newest(): number {
    return Math.max(0, this.last);
  }

  /** The events after `after` up to the tap's newest, from here or from the worker's log. */
  async backlog(after: number): Promise<Backlog> {
    if (after >= this.newest) return { events: [], missed: 0, oldest: this.kept[0]?.seq ?? this.newest + 1 };
    const first = this.kept[0]?.seq;
    if (first !== undefined && first <= after + 1) return { events: this.kept.filter((e) => e.seq > after), missed: 0, oldest: first };
    const r = await this.perception.deviceEvents(this.row, after, 0);
    return { events: r.events, missed: Math.max(0, r.oldest - after - 1), oldest: r.oldest };
  }

  private async prime(): Promise<void> {
    try {
      const r = await this.perception.deviceEvents(this.row, 0, 0);
      this.keep(r.events, r.oldest);
      this.last = r.last;
    } catch (err) {
      this.last = 0;
      this.logger.warn({ sessionId: this.row.id, err: (err as Error).message }, 'could not read the device event log; streaming from now');
    }
    void this.loop();
  }

  private async loop(): Promise<void> {
    if (this.running) return;
    this.running = true;
    while (!this.stopped) {
      try {
        const r = await this.perception.deviceEvents(this.row, this.newest, POLL_WAIT_MS);
        const fresh = r.events.filter((e) => e.seq > this.newest);
        this.keep(fresh, r.oldest);
        if (fresh.length === 0) continue;
        this.last = fresh.at(-1)!.seq;
        for (const l of this.listeners) l(fresh);
      } catch (err) {
        // The session ended or its host went away: the session stream says so; stop asking.
        if (err instanceof ApiError && (err.code === 'SESSION_ENDED' || err.code === 'NOT_FOUND' || err.code === 'STALE_LEASE')) break;
        this.logger.debug({ sessionId: this.row.id, err: (err as Error).message }, 'device event poll failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.running = false;
  }

  /** Keeps the newest events, never older than the worker's own oldest (one retention rule). */
  private keep(events: DeviceEvent[], workerOldest: number): void {
    this.kept.push(...events);
    let drop = Math.max(0, this.kept.length - KEEP);
    while (drop < this.kept.length && this.kept[drop]!.seq < workerOldest) drop++;
    if (drop > 0) this.kept = this.kept.slice(drop);
  }
}

/** One tap per watched session on this gateway, shared by its subscribers. */
export class DeviceTaps {
  private readonly taps = new Map<string, DeviceTap>();

  constructor(
    private readonly perception: SessionPerception,
    private readonly logger: Logger,
  ) {}

  of(row: SessionRow): DeviceTap {
    let tap = this.taps.get(row.id);
    if (!tap) {
      const t: DeviceTap = new DeviceTap(row, this.perception, this.logger, () => {
        if (this.taps.get(row.id) === t) this.taps.delete(row.id);
      });
      tap = t;
      this.taps.set(row.id, tap);
    }
    return tap;
  }

  get watched(): number {
    return this.taps.size;
  }
}
