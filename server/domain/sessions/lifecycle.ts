// A device's way through a lease: prepare it for a session (then the session is ready), reset it
// afterwards (then it is available again). A failed prepare, or a reset failed twice, quarantines the device: it
// stays broken, visible to admins and never handed out, until an admin resets it. A host that
// cannot be asked leaves the device offline and marked for reset when the host returns.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Database, Queryable } from '../../db/database.js';
import { isOutage, throughOutage } from '../../db/outage.js';
import { recordAudit } from '../../db/repositories/audit.js';
import * as devices from '../../db/repositories/devices.js';
import * as sessions from '../../db/repositories/sessions.js';
import type { Schemas } from '../../../openapi/contract.js';
import { REQUEST_FAULT_CODES, UNREACHABLE_CODES, type DeviceCommands } from './commands.js';
import { endSessionTx, type ReclaimJob } from './transitions.js';

/** Resets tried before a device is quarantined, and the pause between them. */
const RESET_ATTEMPTS = 2;
const RESET_RETRY_MS = 1000;

export interface PrepareJob {
  sessionId: string;
  deviceId: string;
  hostId: string;
  localId: string;
  epoch: number;
  app: Schemas['AppTarget'] | null;
}

export interface LifecycleOptions {
  origins: Schemas['OriginRules'];
  prepareTimeoutMs: number;
  resetTimeoutMs: number;
  /** Prepare attempts (each on a device of its own) before the session ends `failed`. */
  maxPrepareAttempts: number;
}

export interface LifecycleHooks {
  /** Called whenever a device may have become free. */
  onDeviceFreed(): void;
  onQuarantine(deviceId: string, reason: string): void;
}

export class DeviceLifecycle {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly commands: DeviceCommands,
    private readonly opts: LifecycleOptions,
    private readonly hooks: LifecycleHooks,
    private readonly logger: Logger,
  ) {}

  /** Resolves when every prepare and reset started so far has finished (shutdown waits on this). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * A transaction recording what a device already did: retried through a database outage (what the
   * device did is true whether or not Postgres was up to hear it), within the prepare deadline.
   */
  private record<T>(what: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return throughOutage(what, () => this.db.transaction(fn), { withinMs: this.opts.prepareTimeoutMs, logger: this.logger });
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  prepare(job: PrepareJob): Promise<void> {
    return this.track(this.doPrepare(job));
  }

  /** The app could not be opened for the request's own reasons: the session fails, the device is reset. */
  private async requestRefused(job: PrepareJob, err: Error & { code?: string }): Promise<void> {
    const reason = `${err.code}: ${err.message}`;
    this.logger.info({ sessionId: job.sessionId, code: err.code, err: err.message }, 'the session app could not be opened');
    const leftover = await this.record('a refused prepare', async (tx) => {
      const session = await sessions.getSession(tx, job.sessionId, true);
      if (session && session.state === 'preparing' && Number(session.epoch) === job.epoch) {
        return (await endSessionTx(tx, session, 'failed', reason, { reclaim: true })).job;
      }
      return undefined;
    });
    if (leftover) await this.doReclaim(leftover);
  }

  /** Resets a device whose reclaim has been recorded; on success it is available again. */
  reclaim(job: ReclaimJob): Promise<void> {
    return this.track(this.doReclaim(job));
  }

  private async doPrepare(job: PrepareJob): Promise<void> {
    const log = this.logger.child({ sessionId: job.sessionId, deviceId: job.deviceId, hostId: job.hostId });
    try {
      await this.commands.prepare(
        job.hostId,
        { localId: job.localId, epoch: job.epoch, sessionId: job.sessionId, app: job.app, origins: this.opts.origins },
        this.opts.prepareTimeoutMs,
      );
    } catch (err) {
      return this.prepareFailed(job, err as Error & { code?: string });
    }
    const leftover = await this.record('a finished prepare', async (tx) => {
      const ready = await sessions.markReady(tx, job.sessionId, job.epoch);
      if (ready) {
        await devices.setDeviceLeased(tx, job.deviceId, job.epoch);
        await sessions.notifySessionEvent(tx, { id: ready.id, seq: Number(ready.event_seq), kind: 'session' });
        return undefined;
      }
      // The session ended while its device was being prepared: the device goes straight back.
      const device = await devices.lockDevice(tx, job.deviceId);
      if (device && device.epoch === job.epoch && device.state === 'preparing') {
        const r = await devices.setDeviceReclaiming(tx, job.deviceId, `resetting after session ${job.sessionId} ended during prepare`);
        return { deviceId: job.deviceId, hostId: r.host_id, localId: r.local_id, epoch: r.epoch };
      }
      return undefined;
    });
    if (leftover) await this.reclaim(leftover);
    else log.info('session ready');
  }

  private async prepareFailed(job: PrepareJob, err: Error & { code?: string }): Promise<void> {
    if (REQUEST_FAULT_CODES.has(err.code ?? '')) return this.requestRefused(job, err);
    const unreachable = unreachableFailure(err);
    const reason = isOutage(err)
      ? `prepare not confirmed: the database was unavailable (${err.message})`
      : `prepare failed: ${err.code ?? 'ERROR'}: ${err.message}`;
    this.logger.warn({ sessionId: job.sessionId, deviceId: job.deviceId, code: err.code, err: err.message }, 'device prepare failed');
    await this.record('a failed prepare', async (tx) => {
      const session = await sessions.getSession(tx, job.sessionId, true);
      if (session && session.state === 'preparing' && Number(session.epoch) === job.epoch) {
        if (session.prepare_attempts >= this.opts.maxPrepareAttempts) {
          await endSessionTx(tx, session, 'failed', reason, { reclaim: false });
        } else {
          const back = await sessions.requeue(tx, job.sessionId, job.epoch);
          if (back) await sessions.notifySessionEvent(tx, { id: back.id, seq: Number(back.event_seq), kind: 'session' });
        }
      }
      if (unreachable) await devices.setDeviceUnreachable(tx, job.deviceId, job.epoch, reason);
      else await this.quarantineTx(tx, job.deviceId, job.epoch, reason);
      await sessions.notifyPlacement(tx);
    });
    if (!unreachable) this.hooks.onQuarantine(job.deviceId, reason);
    this.hooks.onDeviceFreed();
  }

  private async doReclaim(job: ReclaimJob): Promise<void> {
    try {
      await this.resetWithRetry(job);
    } catch (err) {
      const e = err as Error & { code?: string };
      const reason = isOutage(e) ? `reset not confirmed: the database was unavailable (${e.message})` : `reset failed: ${e.code ?? 'ERROR'}: ${e.message}`;
      this.logger.warn({ deviceId: job.deviceId, code: e.code, err: e.message }, 'device reset failed');
      if (unreachableFailure(e)) {
        await this.record('an unreachable device', (tx) => devices.setDeviceUnreachable(tx, job.deviceId, job.epoch, reason));
      } else {
        await this.record('a failed reset', (tx) => this.quarantineTx(tx, job.deviceId, job.epoch, reason));
        this.hooks.onQuarantine(job.deviceId, reason);
      }
      return;
    }
    const freed = await this.record('a finished reset', async (tx) => {
      const ok = await devices.setDeviceAvailableAfterReset(tx, job.deviceId, job.epoch);
      if (ok) await sessions.notifyPlacement(tx);
      return ok;
    });
    if (freed) this.hooks.onDeviceFreed();
  }

  /**
   * A reset the device itself failed is tried once more before the device is quarantined: a browser
   * slow to open a context under load is not a broken device, and quarantine takes it out of the
   * farm until an admin notices. A host that cannot be asked is not retried here: recovery resets
   * the device when the host is back.
   */
  private async resetWithRetry(job: ReclaimJob): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commands.reset(job.hostId, { localId: job.localId, epoch: job.epoch }, this.opts.resetTimeoutMs);
      } catch (err) {
        const e = err as Error & { code?: string };
        if (attempt >= RESET_ATTEMPTS || unreachableFailure(e)) throw err;
        this.logger.warn({ deviceId: job.deviceId, attempt, code: e.code, err: e.message }, 'device reset failed; trying once more');
        await sleep(RESET_RETRY_MS);
      }
    }
  }

  /** Starts a reset of a device outside any session (host reconcile, admin). */
  async startReclaim(deviceId: string, reason: string): Promise<void> {
    const r = await this.db.transaction((tx) => devices.setDeviceReclaiming(tx, deviceId, reason));
    await this.reclaim({ deviceId, hostId: r.host_id, localId: r.local_id, epoch: r.epoch });
  }

  private async quarantineTx(tx: Parameters<Parameters<Database['transaction']>[0]>[0], deviceId: string, epoch: number, reason: string): Promise<void> {
    if (await devices.quarantineDevice(tx, deviceId, epoch, reason)) {
      await recordAudit(tx, { actor: null, actorRole: null, team: null, action: 'device.quarantine', subject: deviceId, detail: { reason, epoch } });
    }
  }
}

/**
 * A failure that says nothing about the device: its host could not be asked, or the database the
 * command travels through was away (a Postgres restart mid-prepare). The device is left offline and
 * marked for reset, which the host's next report recovers; quarantining it would take a healthy
 * device out of the farm until an admin noticed (seen: both devices of a host, in a chaos run).
 */
function unreachableFailure(err: Error & { code?: string }): boolean {
  return UNREACHABLE_CODES.has(err.code ?? '') || isOutage(err);
}
