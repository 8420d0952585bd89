// The event logs of every device on this host, and the gateway's one question about them
// (events.read). While a gateway is reading a device's log, each settle also reads the screen, so
// the stream can say which screen the device came to rest on; when no one is reading, only the
// reads actions and clients make anyway are named (a tree read costs the device time).
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError } from '../devices/backend.js';
import type { Eyes } from '../perception/eyes.js';
import { DeviceFeed, FEED_DEFAULTS, type FeedOptions } from './feed.js';

type Schemas = components['schemas'];

/** A gateway that read a log within this long is still watching it. */
const WATCHED_FOR_MS = 30_000;
const MAX_WAIT_MS = 30_000;
const MAX_BATCH = 2000;

export interface FeedDeps {
  eyesOf(localId: string): Eyes;
  leaseOf(localId: string): { epoch: number } | null;
  /** Reads the screen of a leased device (the read is reported back through noteScreen). */
  readScreen(localId: string, epoch: number, team: string): Promise<unknown>;
}

interface Watched {
  feed: DeviceFeed;
  polledAt: number;
  team: string;
}

export class Feeds {
  private readonly feeds = new Map<string, Watched>();

  constructor(
    private readonly deps: FeedDeps,
    private readonly logger: Logger,
    private readonly opts: FeedOptions = FEED_DEFAULTS,
  ) {}

  watch(devices: { localId: string; backend: unknown }[]): void {
    for (const { localId, backend } of devices) {
      if (!backend || this.feeds.has(localId)) continue;
      const eyes = this.deps.eyesOf(localId);
      const w: Watched = { feed: new DeviceFeed(eyes, () => this.deps.leaseOf(localId), this.opts), polledAt: 0, team: 'default' };
      eyes.activity.happenings.on('settled', () => this.onSettled(localId, w));
      this.feeds.set(localId, w);
    }
  }

  async read(localId: string, epoch: number, team: string, params: Record<string, unknown>): Promise<Schemas['DeviceEvents']> {
    const w = this.feeds.get(localId);
    if (!w) throw new DeviceError('NOT_FOUND', `this host has no device ${localId}`);
    const after = num(params.after, 0);
    const waitMs = Math.min(MAX_WAIT_MS, num(params.waitMs, 0));
    const max = Math.max(1, Math.min(MAX_BATCH, num(params.max, MAX_BATCH)));
    w.polledAt = Date.now();
    w.team = team;
    return w.feed.read(epoch, after, waitMs, max);
  }

  noteScreen(localId: string, epoch: number, screen: Schemas['ScreenIdentity'], source: 'tree' | 'memory', elements: number): void {
    this.feeds.get(localId)?.feed.noteScreen(epoch, screen, source, elements);
  }

  noteAction(localId: string, epoch: number, result: Schemas['ActionResult']): void {
    this.feeds.get(localId)?.feed.noteAction(epoch, result);
  }

  noteEscalation(localId: string, epoch: number, e: Omit<Schemas['EscalationEvent'], 'type' | 'seq' | 'at'>): void {
    this.feeds.get(localId)?.feed.noteEscalation(epoch, e);
  }

  /** Events kept in every device's log, for the worker's heartbeat. */
  held(): number {
    let n = 0;
    for (const w of this.feeds.values()) n += w.feed.size;
    return n;
  }

  close(): void {
    for (const w of this.feeds.values()) w.feed.close();
    this.feeds.clear();
  }

  private onSettled(localId: string, w: Watched): void {
    const lease = this.deps.leaseOf(localId);
    if (!lease || Date.now() - w.polledAt > WATCHED_FOR_MS) return;
    this.deps
      .readScreen(localId, lease.epoch, w.team)
      .catch((err: unknown) => this.logger.debug({ localId, err: (err as Error).message }, 'could not read the settled screen for the event stream'));
  }
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback;
}
