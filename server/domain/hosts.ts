// The farm's view of its hosts and their devices: registration, heartbeats, device reports and
// liveness. Postgres is the shared truth, so any gateway can answer for any host.
import type { Logger } from 'pino';
import type { Schemas } from '../../openapi/contract.js';
import type { Database, Queryable } from '../db/database.js';
import { recordAudit } from '../db/repositories/audit.js';
import * as devices from '../db/repositories/devices.js';
import type { DeviceRow } from '../db/repositories/devices.js';
import * as hosts from '../db/repositories/hosts.js';
import * as sessions from '../db/repositories/sessions.js';
import type { SessionRow } from '../db/repositories/sessions.js';
import type { DeviceLifecycle } from './sessions/lifecycle.js';
import { endSessionTx, type ReclaimJob } from './sessions/transitions.js';
import type { Principal } from './tokens.js';
import type { Judgement } from './pauses.js';

type WorkerDevice = Schemas['WorkerDevice'];
type BackendStatus = Schemas['BackendStatus'];
type DeviceState = Schemas['DeviceState'];

export interface Connection {
  hostId: string;
  connectionId: string;
  gatewayId: string;
  principal: Principal;
}

export const deviceId = (hostId: string, localId: string): string => `${hostId}.${localId}`;

export interface DeviceDecision {
  state: DeviceState;
  reason: string | null;
  needsReset: boolean;
  /** End the device's active session for this reason. */
  endSession?: { reason: 'device-lost'; detail: string };
  /** Reset the device before anyone may have it. */
  reclaim: boolean;
}

/**
 * What the farm makes of a device report, given what it knew. A lease the worker still holds under
 * the same epoch is re-adopted (a gateway restart loses nothing); a lease it no longer holds means
 * the device lost the session's state; anything that may carry a previous session's state is reset
 * before it is handed out.
 */
export function decideDevice(row: DeviceRow | undefined, report: WorkerDevice, session: SessionRow | undefined): DeviceDecision {
  const inFlight = row !== undefined && (row.state === 'leased' || row.state === 'preparing' || row.state === 'reclaiming');
  if (report.health === 'broken') {
    const reason = report.reason ?? 'reported broken by its host';
    return {
      state: 'broken',
      reason,
      needsReset: (row?.needs_reset ?? false) || inFlight,
      reclaim: false,
      ...(session ? { endSession: { reason: 'device-lost', detail: reason } } : {}),
    };
  }
  if (row?.quarantined) {
    const reason = row.state_reason ?? 'quarantined';
    return { state: 'broken', reason, needsReset: true, reclaim: false, ...(session ? { endSession: { reason: 'device-lost', detail: reason } } : {}) };
  }
  if (session && row) {
    const held = report.lease && report.lease.epoch === Number(row.epoch) && report.lease.sessionId === session.id;
    if (held) return { state: row.state, reason: null, needsReset: row.needs_reset, reclaim: false };
    // A prepare still on its way: a report the worker sent before it took the command says nothing
    // of a loss (under load, such reports ended sessions device-lost at placement). A prepare that
    // never arrives fails on its own deadline.
    if (session.state === 'preparing' && (!report.lease || report.lease.epoch < Number(row.epoch))) {
      return { state: row.state, reason: null, needsReset: row.needs_reset, reclaim: false };
    }
    return {
      state: 'reclaiming',
      reason: null,
      needsReset: true,
      reclaim: true,
      endSession: { reason: 'device-lost', detail: 'the host no longer holds this lease (its worker restarted)' },
    };
  }
  if (row?.needs_reset || row?.state === 'reclaiming' || inFlight || report.lease) {
    return { state: 'reclaiming', reason: null, needsReset: true, reclaim: true };
  }
  return { state: 'available', reason: null, needsReset: false, reclaim: false };
}

export class HostRegistry {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: DeviceLifecycle,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a hello. Returns the resets to start once the connection is registered (the caller
   * runs them after its welcome: a reset sent earlier would find no registered connection).
   */
  async register(
    conn: Connection,
    hello: Pick<Schemas['WorkerHello'], 'host' | 'protocolVersion' | 'backends' | 'devices' | 'textRecognition' | 'checks'>,
  ): Promise<ReclaimJob[]> {
    return this.db.transaction(async (tx) => {
      await hosts.upsertHostOnHello(tx, {
        ...hello.host,
        protocolVersion: hello.protocolVersion,
        backends: hello.backends,
        gatewayId: conn.gatewayId,
        connectionId: conn.connectionId,
        tokenId: conn.principal.tokenId,
        textRecognition: hello.textRecognition,
        checks: hello.checks,
      });
      const reclaim = await this.syncDevices(tx, conn.hostId, hello.devices);
      await recordAudit(tx, {
        actor: conn.principal.tokenId,
        actorRole: conn.principal.role,
        team: conn.principal.team,
        action: 'host.register',
        subject: conn.hostId,
        detail: { gatewayId: conn.gatewayId, devices: hello.devices.length, version: hello.host.version },
      });
      await sessions.notifyPlacement(tx);
      return reclaim;
    });
  }

  /** False when this connection no longer owns the host. `strained`: it reported new signs of strain. */
  heartbeat(conn: Connection, strained = false): Promise<boolean> {
    return hosts.recordHeartbeat(this.db, conn.hostId, conn.connectionId, strained);
  }

  async reportDevices(conn: Connection, backends: BackendStatus[], reported: WorkerDevice[]): Promise<boolean> {
    const result = await this.db.transaction(async (tx) => {
      if (!(await hosts.updateHostBackends(tx, conn.hostId, conn.connectionId, backends))) return undefined;
      const jobs = await this.syncDevices(tx, conn.hostId, reported);
      await sessions.notifyPlacement(tx);
      return jobs;
    });
    if (!result) return false;
    this.runReclaims(result);
    return true;
  }

  /** A closed connection. A clean goodbye takes the host offline now; a lost one waits for the timeout. */
  async disconnect(conn: Connection, clean: boolean): Promise<void> {
    await this.db.transaction(async (tx) => {
      const released = await hosts.releaseConnection(tx, conn.hostId, conn.connectionId, clean);
      if (released && clean) await this.hostsGone(tx, [conn.hostId], 'host stopped');
    });
  }

  /** Marks silent hosts and their devices offline, ending their sessions; returns the hosts. */
  async sweep(timeoutMs: number, pause?: Judgement): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const silent = await hosts.sweepSilentHosts(tx, timeoutMs, pause?.allowance);
      pause?.confirm(); // throws before anything is ended: the UPDATE rolls back
      if (silent.length > 0) {
        await this.hostsGone(tx, silent, 'host offline: no heartbeat');
        for (const id of silent) {
          await recordAudit(tx, { actor: null, actorRole: null, team: null, action: 'host.offline', subject: id, detail: { timeoutMs } });
        }
        this.logger.warn({ hosts: silent, timeoutMs }, 'hosts went silent and are now offline');
      }
      return silent;
    });
  }

  /** Sessions on the hosts end host-lost (sessions first: the lock order); then the devices go offline. */
  private async hostsGone(tx: Queryable, hostIds: string[], reason: string): Promise<void> {
    for (const s of await sessions.lockActiveOnHosts(tx, hostIds)) {
      await endSessionTx(tx, s, 'host-lost', reason, { reclaim: false });
    }
    await devices.setDevicesOfHostsOffline(tx, hostIds, reason);
  }

  private async syncDevices(tx: Queryable, hostId: string, reported: WorkerDevice[]): Promise<ReclaimJob[]> {
    const active = new Map((await sessions.lockActiveOnHosts(tx, [hostId])).map((s) => [s.device_id!, s]));
    const current = new Map((await devices.lockDevicesOfHost(tx, hostId)).map((d) => [d.local_id, d]));
    const jobs: ReclaimJob[] = [];
    for (const d of reported) {
      const id = deviceId(hostId, d.localId);
      const row = current.get(d.localId);
      const session = active.get(id);
      const decision = decideDevice(row, d, session);
      if (decision.endSession && session) await endSessionTx(tx, session, decision.endSession.reason, decision.endSession.detail, { reclaim: false });
      await devices.upsertDevice(tx, {
        id,
        host_id: hostId,
        local_id: d.localId,
        platform: d.platform,
        backend: d.backend,
        model: d.model,
        os: d.os,
        name: d.name,
        labels: d.labels,
        health: d.health,
        reported: true,
        state: decision.state,
        state_reason: decision.reason,
        needs_reset: decision.needsReset,
      });
      if (decision.reclaim) {
        const r = await devices.setDeviceReclaiming(tx, id, 'resetting before reuse');
        jobs.push({ deviceId: id, hostId, localId: d.localId, epoch: r.epoch });
      }
      current.delete(d.localId);
    }
    for (const gone of current.values()) {
      if (!gone.reported && gone.state === 'offline') continue;
      const session = active.get(gone.id);
      if (session) await endSessionTx(tx, session, 'device-lost', 'the host no longer reports the device', { reclaim: false });
      const inFlight = gone.state === 'leased' || gone.state === 'preparing' || gone.state === 'reclaiming';
      await devices.upsertDevice(tx, {
        ...gone,
        reported: false,
        state: 'offline',
        state_reason: 'no longer reported by its host',
        needs_reset: gone.needs_reset || inFlight,
      });
    }
    return jobs;
  }

  runReclaims(jobs: ReclaimJob[]): void {
    for (const job of jobs) {
      this.lifecycle.reclaim(job).catch((err: unknown) => this.logger.error({ err, deviceId: job.deviceId }, 'device reset could not be recorded'));
    }
  }
}
