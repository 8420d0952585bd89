// SQL for hosts. A host row names the connection (gateway + connection id) that owns it, and every
// write from a connection is fenced on that id, so a stale connection cannot overwrite a newer one.
import type { Queryable } from '../database.js';
import type { Schemas } from '../../../openapi/contract.js';
import { allowanceParams, deadlinePassed, type PauseAllowance } from './pause-allowance.js';

export interface HostRow {
  id: string;
  name: string;
  os: string;
  arch: string;
  version: string;
  protocol_version: number;
  backends: Schemas['BackendStatus'][];
  state: Schemas['HostState'];
  gateway_id: string | null;
  connection_id: string | null;
  token_id: string | null;
  registered_at: Date;
  connected_at: Date | null;
  last_seen_at: Date;
  offline_since: Date | null;
  /** When its worker last reported new signs of strain (0008). */
  strained_at: Date | null;
  /** Whether its text recognition can run, as its hello said (0009); null: not said. */
  text_recognition: Schemas['TextRecognitionStatus'] | null;
  /** What its worker found at start for each backend (0010); null: not said. */
  checks: Schemas['HostCheck'][] | null;
  device_count: number;
}

const SELECT = `SELECT h.*, (SELECT count(*)::int FROM devices d WHERE d.host_id = h.id AND d.reported) AS device_count FROM hosts h`;

export interface HelloRecord {
  id: string;
  name: string;
  os: string;
  arch: string;
  version: string;
  protocolVersion: number;
  backends: Schemas['BackendStatus'][];
  gatewayId: string;
  connectionId: string;
  tokenId: string | null;
  textRecognition?: Schemas['TextRecognitionStatus'] | undefined;
  checks?: Schemas['HostCheck'][] | undefined;
}

export async function upsertHostOnHello(q: Queryable, h: HelloRecord): Promise<void> {
  await q.query(
    `INSERT INTO hosts (id, name, os, arch, version, protocol_version, backends, state, gateway_id, connection_id, token_id, connected_at, last_seen_at, text_recognition, checks)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, 'online', $8, $9, $10, now(), now(), $11::jsonb, $12::jsonb)
     ON CONFLICT (id) DO UPDATE SET
       name = excluded.name, os = excluded.os, arch = excluded.arch, version = excluded.version,
       protocol_version = excluded.protocol_version, backends = excluded.backends, state = 'online',
       gateway_id = excluded.gateway_id, connection_id = excluded.connection_id, token_id = excluded.token_id,
       connected_at = now(), last_seen_at = now(), offline_since = NULL, text_recognition = excluded.text_recognition,
       checks = excluded.checks`,
    [
      h.id,
      h.name,
      h.os,
      h.arch,
      h.version,
      h.protocolVersion,
      JSON.stringify(h.backends),
      h.gatewayId,
      h.connectionId,
      h.tokenId,
      h.textRecognition ? JSON.stringify(h.textRecognition) : null,
      h.checks ? JSON.stringify(h.checks) : null,
    ],
  );
}

/**
 * Returns false when the connection no longer owns the host (it was replaced or swept offline).
 * `strained`: the heartbeat reported new signs of strain, which placement reads (strained_at).
 */
export async function recordHeartbeat(q: Queryable, hostId: string, connectionId: string, strained = false): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE hosts SET last_seen_at = now(), strained_at = CASE WHEN $3::boolean THEN now() ELSE strained_at END
     WHERE id = $1 AND connection_id = $2 AND state = 'online'`,
    [hostId, connectionId, strained],
  );
  return rowCount > 0;
}

export async function updateHostBackends(q: Queryable, hostId: string, connectionId: string, backends: Schemas['BackendStatus'][]): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE hosts SET backends = $3::jsonb, last_seen_at = now() WHERE id = $1 AND connection_id = $2 AND state = 'online'`, [
    hostId,
    connectionId,
    JSON.stringify(backends),
  ]);
  return rowCount > 0;
}

/** Detaches a connection; with `offline` the host goes offline at once (a clean shutdown). */
export async function releaseConnection(q: Queryable, hostId: string, connectionId: string, offline: boolean): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE hosts SET gateway_id = NULL, connection_id = NULL,
       state = CASE WHEN $3 THEN 'offline' ELSE state END,
       offline_since = CASE WHEN $3 AND state = 'online' THEN now() ELSE offline_since END
     WHERE id = $1 AND connection_id = $2`,
    [hostId, connectionId, offline],
  );
  return rowCount > 0;
}

/**
 * Marks offline every online host silent for longer than the timeout; returns their ids. A host is
 * allowed the part of the sweeping gateway's pauses that fell after it was last heard, since nobody
 * was listening meanwhile (pause-allowance.ts).
 */
export async function sweepSilentHosts(q: Queryable, timeoutMs: number, pause?: PauseAllowance): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `UPDATE hosts SET state = 'offline', offline_since = now(), gateway_id = NULL, connection_id = NULL
     WHERE state = 'online' AND ${deadlinePassed('last_seen_at', `($1::double precision * interval '1 millisecond')`, '$2', '$3')}
     RETURNING id`,
    [timeoutMs, ...allowanceParams(pause)],
  );
  return rows.map((r) => r.id);
}

/** Hosts whose connection belonged to a gateway that is gone (used when a gateway starts). */
export async function releaseGatewayConnections(q: Queryable, gatewayId: string): Promise<number> {
  const { rowCount } = await q.query(`UPDATE hosts SET gateway_id = NULL, connection_id = NULL WHERE gateway_id = $1`, [gatewayId]);
  return rowCount;
}

export async function listHosts(q: Queryable, filter: { state?: string | undefined }): Promise<HostRow[]> {
  const { rows } = await q.query<HostRow>(`${SELECT} WHERE ($1::text IS NULL OR h.state = $1) ORDER BY h.last_seen_at DESC, h.id`, [filter.state ?? null]);
  return rows;
}

export async function getHost(q: Queryable, id: string): Promise<HostRow | undefined> {
  const { rows } = await q.query<HostRow>(`${SELECT} WHERE h.id = $1`, [id]);
  return rows[0];
}

/** Online hosts whose worker reported new signs of strain within the window. */
export async function countStrainedHosts(q: Queryable, windowMs: number): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM hosts WHERE state = 'online' AND strained_at > now() - ($1::double precision * interval '1 millisecond')`,
    [windowMs],
  );
  return rows[0]?.n ?? 0;
}

export async function countHostsByState(q: Queryable): Promise<{ state: string; n: number }[]> {
  const { rows } = await q.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM hosts GROUP BY state`);
  return rows;
}

/** Connected hosts whose backend for this platform says it is still starting (a browser launching). */
export async function countStartingBackends(q: Queryable, platform: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM hosts WHERE state = 'online' AND connection_id IS NOT NULL AND backends @> $1::jsonb`,
    [JSON.stringify([{ platform, starting: true }])],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Whether a host has reported its devices in full: registered and online, no backend starting and
 * no device still booting (`starting`, the reason a worker gives for one). Undefined: all reported;
 * otherwise what is still awaited.
 */
export async function devicesAwaited(q: Queryable, hostId: string): Promise<string | undefined> {
  const { rows } = await q.query<{ state: string; connected: boolean; starting: string[]; booting: number }>(
    `SELECT h.state, h.connection_id IS NOT NULL AS connected,
       ARRAY(SELECT b->>'backend' FROM jsonb_array_elements(h.backends) b WHERE b @> '{"starting": true}') AS starting,
       (SELECT count(*)::int FROM devices d WHERE d.host_id = h.id AND d.reported AND d.health = 'broken' AND d.state_reason = 'starting') AS booting
     FROM hosts h WHERE h.id = $1`,
    [hostId],
  );
  const h = rows[0];
  if (h?.state !== 'online' || !h.connected) return 'the local worker has not registered yet';
  if (h.starting.length) return `backend starting: ${h.starting.join(', ')}`;
  if (h.booting) return `${h.booting} device(s) still starting`;
  return undefined;
}

/** Connected hosts whose backend for this platform cannot run, with what it says about why and how to fix it. */
export async function unavailableBackends(q: Queryable, platform: string): Promise<{ host: string; detail: string | null; hint: string | null }[]> {
  const { rows } = await q.query<{ host: string; detail: string | null; hint: string | null }>(
    `SELECT h.name AS host, b->>'detail' AS detail, b->>'hint' AS hint
     FROM hosts h, jsonb_array_elements(h.backends) b
     WHERE h.state = 'online' AND h.connection_id IS NOT NULL AND b->>'platform' = $1 AND b @> '{"available": false}'
     ORDER BY h.name LIMIT 3`,
    [platform],
  );
  return rows;
}
