// Runs placement: lock free devices and the queued requests that could use them (SKIP LOCKED, so
// several gateways place at once without ever handing one device out twice), apply the policy in
// placement.ts, record the leases, commit, then prepare each device. It runs when something may
// have changed (NOTIFY sf_placement from any gateway) and on a timer as a safety net.
import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import * as devices from '../../db/repositories/devices.js';
import * as sessions from '../../db/repositories/sessions.js';
import * as teams from '../../db/repositories/teams.js';
import { STRAIN_MEMORY_MS } from '../strain.js';
import type { DeviceLifecycle, PrepareJob } from './lifecycle.js';
import { plan, type TeamUsage } from './placement.js';

export interface PlacerOptions {
  agingMs: number;
  fairnessWindowMs: number;
  /** Farm-wide default quota per team; 0 means none. */
  teamMaxSessions: number;
  intervalMs: number;
  /** Devices considered per run. */
  batch: number;
}

export interface PlacerHooks {
  onPlaced(count: number, waitedMs: number[]): void;
}

export class Placer {
  /** Every run on this gateway goes through this chain: one at a time, in order. */
  private chain: Promise<unknown> = Promise.resolve();
  private queued = false;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: DeviceLifecycle,
    private readonly opts: PlacerOptions,
    private readonly hooks: PlacerHooks,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen('sf_placement', () => this.kick());
    this.timer = setInterval(() => this.kick(), this.opts.intervalMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.unlisten?.();
    await this.chain.catch(() => undefined);
  }

  /** Asks for a placement run soon; requests made while one is waiting to start coalesce. */
  kick(): void {
    if (this.stopped || this.queued) return;
    this.queued = true;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      try {
        // A full batch may have left more to place.
        while ((await this.runOnce()) >= this.opts.batch && !this.stopped);
      } catch (err) {
        this.logger.warn({ err }, 'placement run failed; the next one will retry');
      }
    });
  }

  /**
   * A run whose outcome the caller reads next (session create): it starts after every earlier run
   * here has committed, since one of those may hold the caller's request locked.
   */
  runNow(): Promise<number> {
    const run = this.chain.then(() => this.runOnce());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async runOnce(): Promise<number> {
    const now = Date.now();
    const { jobs, waited } = await this.db.transaction(async (tx) => {
      const free = await devices.lockAvailableDevices(tx, this.opts.batch, STRAIN_MEMORY_MS);
      if (free.length === 0) return { jobs: [], waited: [] };
      const queued = await sessions.lockQueued(tx, free, free.length, this.opts.agingMs);
      if (queued.length === 0) return { jobs: [], waited: [] };
      const usage = new Map<string, TeamUsage>();
      for (const t of await teams.teamUsage(tx, this.opts.fairnessWindowMs)) {
        const quota = t.max_sessions ?? (this.opts.teamMaxSessions > 0 ? this.opts.teamMaxSessions : null);
        usage.set(t.name, { weight: t.weight, quota, active: t.active, recent: t.recent });
      }
      const byId = new Map(queued.map((s) => [s.id, s]));
      const deviceById = new Map(free.map((d) => [d.id, d]));
      const assignments = plan(
        queued.map((s) => ({
          id: s.id,
          team: s.team,
          priority: s.priority,
          createdAtMs: new Date(s.created_at).getTime(),
          platform: s.platform,
          requirements: s.requirements,
        })),
        free.map((d) => ({
          id: d.id,
          platform: d.platform,
          model: d.model,
          os: d.os,
          labels: d.labels,
          host: { id: d.host_id, strained: d.host_strained, busy: d.host_busy },
        })),
        usage,
        now,
        this.opts.agingMs,
      );
      const jobs: PrepareJob[] = [];
      const waitedMs: number[] = [];
      for (const a of assignments) {
        const device = deviceById.get(a.deviceId)!;
        const epoch = await devices.leaseDevice(tx, device.id, a.sessionId);
        const placed = await sessions.markPlaced(tx, a.sessionId, device.id, device.host_id, epoch);
        if (!placed) throw new Error(`session ${a.sessionId} left the queue while locked`);
        await sessions.notifySessionEvent(tx, { id: placed.id, seq: Number(placed.event_seq), kind: 'session' });
        jobs.push({ sessionId: a.sessionId, deviceId: device.id, hostId: device.host_id, localId: device.local_id, epoch, app: byId.get(a.sessionId)!.app });
        waitedMs.push(now - new Date(byId.get(a.sessionId)!.created_at).getTime());
      }
      return { jobs, waited: waitedMs };
    });
    if (jobs.length > 0) {
      this.hooks.onPlaced(jobs.length, waited);
      this.logger.debug({ placed: jobs.length }, 'placed sessions');
    }
    for (const job of jobs) {
      this.lifecycle.prepare(job).catch((err: unknown) => this.logger.error({ err, sessionId: job.sessionId }, 'prepare could not be recorded'));
    }
    return jobs.length;
  }
}
