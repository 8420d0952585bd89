// Ends what has run out: queued requests past their wait, leases past their TTL, sessions idle
// past their idle timeout; and warns (an `expiring` event) before an idle or TTL expiry. Every
// gateway runs one; rows are taken with SKIP LOCKED, so two reapers never end one session twice.
// It also drops answers to Idempotency-Keys once they are a day old.
//
// A gateway that was paused wakes with its timers due before its sockets are read: a client's
// request that kept a session alive, or a prepare's answer, may be waiting there. The queue, idle
// and stuck-prepare deadlines allow each clock the pauses it ran through (the liveness sweep does
// the same for hosts); a lease's TTL is not extended. A pause that falls while a pass waits on the
// database voids that pass's judgements (pauses.ts, judgement): they are made again at the next.
import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import { type Cancel, every, systemTimers, type Timers } from '../../timers.js';
import * as devices from '../../db/repositories/devices.js';
import { pruneRequests } from '../../db/repositories/requests.js';
import { pruneFarmEvents } from '../../db/repositories/farm-events.js';
import * as sessions from '../../db/repositories/sessions.js';
import { judgement, NO_PAUSES, PauseOvertook, type Judgement, type PauseClock } from '../pauses.js';
import type { DeviceLifecycle } from './lifecycle.js';
import { endSessionTx, type ReclaimJob } from './transitions.js';
import { queueTimeoutDetail } from './queue-timeout.js';

export interface ReaperOptions {
  intervalMs: number;
  warnMaxMs: number;
  /** Past this, a prepare or reset nobody answered is presumed lost (its gateway died). */
  stuckMs: number;
  /** This gateway's pauses, allowed to the deadlines above (none when left out). */
  pauses?: PauseClock;
  /** The passes' timer; the system's unless a test gives its own. */
  timers?: Timers;
}

export interface ReaperHooks {
  onEnded(reason: string): void;
}

/** Answers to Idempotency-Keys are kept this long (the header's documented 24 h). */
const REQUEST_KEEP_MS = 24 * 3600_000;
/** The farm stream resumes from up to an hour back (WS /v1/events); older changes are a new snapshot. */
const FARM_EVENT_KEEP_MS = 3600_000;
/** Pauses this recent are looked at (a clock older than its last pause gets only what fell after it). */
const PAUSE_WINDOW_MS = 3600_000;

export class Reaper {
  private stopTimer: Cancel | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: DeviceLifecycle,
    private readonly opts: ReaperOptions,
    private readonly hooks: ReaperHooks,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopTimer = every(this.opts.timers ?? systemTimers, this.opts.intervalMs, () => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err: unknown) => this.logger.warn({ err }, 'reaper pass failed; will retry'))
        .finally(() => (this.running = undefined));
    });
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    await this.running;
  }

  /** Resolves when no pass is running (for tests on virtual timers). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** This gateway's pauses of the last hour, as the deadlines' queries take them, and their check. */
  private judge(): Judgement {
    return judgement(this.opts.pauses ?? NO_PAUSES, PAUSE_WINDOW_MS);
  }

  /** The safety net under lost replies and dead gateways: nothing stays stuck for good. */
  private async recover(): Promise<void> {
    const j = this.judge();
    const jobs = await this.db.transaction(async (tx) => {
      const out: ReclaimJob[] = [];
      const stuck = await sessions.lockStuckPreparing(tx, this.opts.stuckMs, j.allowance);
      const toRecover = await devices.claimDevicesToRecover(tx, this.opts.stuckMs, j.allowance);
      j.confirm();
      for (const s of stuck) {
        const back = await sessions.requeue(tx, s.id, Number(s.epoch));
        if (back) await sessions.notifySessionEvent(tx, { id: back.id, seq: Number(back.event_seq), kind: 'session' });
        if (s.device_id) {
          const r = await devices.setDeviceReclaiming(tx, s.device_id, `resetting after a prepare nobody answered (session ${s.id})`);
          out.push({ deviceId: s.device_id, hostId: r.host_id, localId: r.local_id, epoch: r.epoch });
        }
        this.logger.warn({ sessionId: s.id, deviceId: s.device_id }, 'a prepare was never answered; the session is back in the queue');
      }
      for (const d of toRecover) {
        out.push({ deviceId: d.id, hostId: d.host_id, localId: d.local_id, epoch: d.epoch });
        this.logger.info({ deviceId: d.id }, 'recovering a device left needing a reset');
      }
      return out;
    });
    for (const job of jobs) {
      this.lifecycle.reclaim(job).catch((err: unknown) => this.logger.error({ err, deviceId: job.deviceId }, 'device reset could not be recorded'));
    }
  }

  async tick(): Promise<void> {
    try {
      await this.pass();
    } catch (err) {
      if (!(err instanceof PauseOvertook)) throw err;
      this.logger.info({ pausedMs: err.pausedMs }, 'this gateway was paused during a reaper pass; its deadlines are judged again at the next one');
    }
  }

  private async pass(): Promise<void> {
    const queued = this.judge();
    await this.db.transaction(async (tx) => {
      const timedOut = await sessions.lockQueueTimedOut(tx, queued.allowance);
      queued.confirm();
      for (const s of timedOut) {
        const detail = await queueTimeoutDetail(tx, s, 'no matching device became free within waitSeconds');
        if ((await endSessionTx(tx, s, 'queue-timeout', detail, { reclaim: false })).ended) this.hooks.onEnded('queue-timeout');
      }
    });
    const active = this.judge();
    const jobs = await this.db.transaction(async (tx) => {
      const out: ReclaimJob[] = [];
      const expired = await sessions.lockExpired(tx, active.allowance);
      active.confirm();
      for (const { row, reason } of expired) {
        const detail = reason === 'expired' ? `the lease ran out (ttl ${row.ttl_seconds} s)` : `no activity for ${row.idle_timeout_seconds} s`;
        const { ended, job } = await endSessionTx(tx, row, reason, detail, { reclaim: true });
        if (ended) this.hooks.onEnded(reason);
        if (job) out.push(job);
      }
      return out;
    });
    for (const job of jobs) {
      this.lifecycle.reclaim(job).catch((err: unknown) => this.logger.error({ err, deviceId: job.deviceId }, 'device reset could not be recorded'));
    }
    await this.recover();
    await pruneRequests(this.db, REQUEST_KEEP_MS);
    await pruneFarmEvents(this.db, FARM_EVENT_KEEP_MS);
    await this.db.transaction(async (tx) => {
      for (const w of await sessions.takeExpiryWarnings(tx, this.opts.warnMaxMs)) {
        await sessions.notifySessionEvent(tx, {
          id: w.row.id,
          seq: Number(w.row.event_seq),
          kind: 'expiring',
          reason: w.reason,
          deadline: new Date(w.deadline).toISOString(),
        });
      }
    });
  }
}
