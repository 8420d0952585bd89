// The farm's view of its hosts and their devices: registration, heartbeats, device reports and
// liveness. Postgres is the shared truth, so any gateway can answer for any host.
import type { Logger } from 'pino';
import type { Schemas } from '../../openapi/contract.js';
import type { Database, Queryable } from '../db/database.js';
import { recordAudit } from '../db/repositories/audit.js';
import * as devices from '../db/repositories/devices.js';
import * as hosts from '../db/repositories/hosts.js';
import type { Principal } from './tokens.js';

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

/**
 * What the farm makes of a device report. A healthy device that was offline or broken becomes
 * available; one in the middle of a lease keeps its state (sessions own those transitions).
 */
export function nextDeviceState(current: DeviceState | undefined, reported: WorkerDevice): { state: DeviceState; reason: string | null } {
  if (reported.health === 'broken') return { state: 'broken', reason: reported.reason ?? 'reported broken by its host' };
  if (current === undefined || current === 'offline' || current === 'broken') return { state: 'available', reason: null };
  return { state: current, reason: null };
}

export class HostRegistry {
  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  async register(
    conn: Connection,
    hello: { host: Schemas['WorkerHostInfo']; protocolVersion: number; backends: BackendStatus[]; devices: WorkerDevice[] },
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await hosts.upsertHostOnHello(tx, {
        ...hello.host,
        protocolVersion: hello.protocolVersion,
        backends: hello.backends,
        gatewayId: conn.gatewayId,
        connectionId: conn.connectionId,
        tokenId: conn.principal.tokenId,
      });
      await this.syncDevices(tx, conn.hostId, hello.devices);
      await recordAudit(tx, {
        actor: conn.principal.tokenId,
        actorRole: conn.principal.role,
        team: conn.principal.team,
        action: 'host.register',
        subject: conn.hostId,
        detail: { gatewayId: conn.gatewayId, devices: hello.devices.length, version: hello.host.version },
      });
    });
  }

  /** False when this connection no longer owns the host. */
  heartbeat(conn: Connection): Promise<boolean> {
    return hosts.recordHeartbeat(this.db, conn.hostId, conn.connectionId);
  }

  async reportDevices(conn: Connection, backends: BackendStatus[], reported: WorkerDevice[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await hosts.updateHostBackends(tx, conn.hostId, conn.connectionId, backends))) return false;
      await this.syncDevices(tx, conn.hostId, reported);
      return true;
    });
  }

  /** A closed connection. A clean goodbye takes the host offline now; a lost one waits for the timeout. */
  async disconnect(conn: Connection, clean: boolean): Promise<void> {
    await this.db.transaction(async (tx) => {
      const released = await hosts.releaseConnection(tx, conn.hostId, conn.connectionId, clean);
      if (released && clean) await devices.setDevicesOfHostsOffline(tx, [conn.hostId], 'host stopped');
    });
  }

  /** Marks silent hosts and their devices offline; returns the hosts it took offline. */
  async sweep(timeoutMs: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const silent = await hosts.sweepSilentHosts(tx, timeoutMs);
      if (silent.length > 0) {
        await devices.setDevicesOfHostsOffline(tx, silent, 'host offline: no heartbeat');
        for (const id of silent) {
          await recordAudit(tx, { actor: null, actorRole: null, team: null, action: 'host.offline', subject: id, detail: { timeoutMs } });
        }
        this.logger.warn({ hosts: silent, timeoutMs }, 'hosts went silent and are now offline');
      }
      return silent;
    });
  }

  private async syncDevices(tx: Queryable, hostId: string, reported: WorkerDevice[]): Promise<void> {
    const current = new Map((await devices.lockDevicesOfHost(tx, hostId)).map((d) => [d.local_id, d]));
    for (const d of reported) {
      const { state, reason } = nextDeviceState(current.get(d.localId)?.state, d);
      await devices.upsertDevice(tx, {
        id: deviceId(hostId, d.localId),
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
        state,
        state_reason: reason,
      });
      current.delete(d.localId);
    }
    for (const gone of current.values()) {
      if (!gone.reported && gone.state === 'offline') continue;
      await devices.upsertDevice(tx, { ...gone, reported: false, state: 'offline', state_reason: 'no longer reported by its host' });
    }
  }
}
