// SQL for devices. The farm's state for a device (available, leased, ...) is decided by the
// domain; this module only reads and writes it.
import type { Queryable } from '../database.js';
import type { Schemas } from '../../../openapi/contract.js';
import { requestFitsDevice } from './request-fits.js';
import { allowanceParams, deadlinePassed, type PauseAllowance } from './pause-allowance.js';

export interface DeviceRow {
  id: string;
  host_id: string;
  local_id: string;
  platform: Schemas['Platform'];
  backend: Schemas['Backend'];
  model: string;
  os: string;
  name: string;
  labels: string[];
  health: 'ready' | 'broken';
  reported: boolean;
  state: Schemas['DeviceState'];
  state_reason: string | null;
  epoch: number;
  session_id: string | null;
  needs_reset: boolean;
  quarantined: boolean;
  first_seen_at: Date;
  updated_at: Date;
}

/** What a host report may change; leases and quarantine are written by their own statements. */
export type DeviceWrite = Omit<DeviceRow, 'first_seen_at' | 'updated_at' | 'epoch' | 'session_id' | 'quarantined'>;

export async function lockDevicesOfHost(q: Queryable, hostId: string): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE host_id = $1 ORDER BY local_id FOR UPDATE`, [hostId]);
  return rows;
}

export async function upsertDevice(q: Queryable, d: DeviceWrite): Promise<void> {
  await q.query(
    `INSERT INTO devices (id, host_id, local_id, platform, backend, model, os, name, labels, health, reported, state, state_reason, needs_reset)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14)
     ON CONFLICT (id) DO UPDATE SET
       platform = excluded.platform, backend = excluded.backend, model = excluded.model, os = excluded.os,
       name = excluded.name, labels = excluded.labels, health = excluded.health, reported = excluded.reported,
       state = excluded.state, state_reason = excluded.state_reason, needs_reset = excluded.needs_reset, updated_at = now(),
       session_id = CASE WHEN excluded.state IN ('leased', 'preparing') THEN devices.session_id ELSE NULL END`,
    [
      d.id,
      d.host_id,
      d.local_id,
      d.platform,
      d.backend,
      d.model,
      d.os,
      d.name,
      JSON.stringify(d.labels),
      d.health,
      d.reported,
      d.state,
      d.state_reason,
      d.needs_reset,
    ],
  );
}

/** Devices of hosts that went away. One that held or was handling a lease must be reset before reuse. */
export async function setDevicesOfHostsOffline(q: Queryable, hostIds: readonly string[], reason: string): Promise<number> {
  if (hostIds.length === 0) return 0;
  const { rowCount } = await q.query(
    `UPDATE devices SET state = 'offline', state_reason = $2, session_id = NULL, updated_at = now(),
       needs_reset = needs_reset OR state IN ('leased', 'preparing', 'reclaiming')
     WHERE host_id = ANY($1::text[]) AND (state <> 'offline' OR state_reason IS DISTINCT FROM $2)`,
    [hostIds, reason],
  );
  return rowCount;
}

/** A free device with what placement weighs about its host. */
export interface FreeDeviceRow extends DeviceRow {
  /** Its host reported new signs of strain within the strain window. */
  host_strained: boolean;
  /** Devices of its host serving a session now. */
  host_busy: number;
}

/**
 * Available devices on online hosts that some queued request could take (placement's `matches`),
 * at most `limit`, skipping rows another gateway is placing. A run that locked the first free
 * devices by id regardless would, past `limit` free devices, never offer a request the one device
 * beyond them that it fits; for the same reason devices of unstrained, less busy hosts come first.
 */
export async function lockAvailableDevices(q: Queryable, limit: number, strainWindowMs: number): Promise<FreeDeviceRow[]> {
  const { rows } = await q.query<FreeDeviceRow>(
    `WITH busy AS (SELECT host_id, count(*)::int AS n FROM devices WHERE session_id IS NOT NULL GROUP BY host_id)
     SELECT d.*,
       coalesce(h.strained_at > now() - ($2::double precision * interval '1 millisecond'), false) AS host_strained,
       coalesce(b.n, 0) AS host_busy
     FROM devices d JOIN hosts h ON h.id = d.host_id LEFT JOIN busy b ON b.host_id = d.host_id
     WHERE d.state = 'available' AND h.state = 'online' AND h.connection_id IS NOT NULL AND NOT d.needs_reset AND NOT d.quarantined
       AND EXISTS (
         SELECT 1 FROM sessions s
         WHERE s.state = 'queued' AND s.queue_deadline > now() AND ${requestFitsDevice('s', 'd')})
     ORDER BY host_strained, host_busy, d.id LIMIT $1 FOR UPDATE OF d SKIP LOCKED`,
    [limit, strainWindowMs],
  );
  return rows;
}

export async function lockDevice(q: Queryable, id: string): Promise<DeviceRow | undefined> {
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0];
}

/** A new lease: the epoch goes up, so commands under any older epoch are refused from here on. */
export async function leaseDevice(q: Queryable, id: string, sessionId: string): Promise<number> {
  const { rows } = await q.query<{ epoch: number }>(
    `UPDATE devices SET state = 'preparing', session_id = $2, epoch = epoch + 1, state_reason = NULL, updated_at = now()
     WHERE id = $1 AND state = 'available' RETURNING epoch`,
    [id, sessionId],
  );
  if (!rows[0]) throw new Error(`device ${id} was not available to lease`);
  return Number(rows[0].epoch);
}

export async function setDeviceLeased(q: Queryable, id: string, epoch: number): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE devices SET state = 'leased', updated_at = now() WHERE id = $1 AND epoch = $2 AND state = 'preparing'`, [
    id,
    epoch,
  ]);
  return rowCount > 0;
}

/** Starts a reset: a fresh epoch fences off the previous session's commands. */
export async function setDeviceReclaiming(q: Queryable, id: string, reason: string): Promise<{ epoch: number; host_id: string; local_id: string }> {
  const { rows } = await q.query<{ epoch: number; host_id: string; local_id: string }>(
    `UPDATE devices SET state = 'reclaiming', session_id = NULL, needs_reset = true, epoch = epoch + 1, state_reason = $2, updated_at = now()
     WHERE id = $1 RETURNING epoch, host_id, local_id`,
    [id, reason],
  );
  if (!rows[0]) throw new Error(`no device ${id}`);
  return { ...rows[0], epoch: Number(rows[0].epoch) };
}

export async function setDeviceAvailableAfterReset(q: Queryable, id: string, epoch: number): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE devices SET state = 'available', needs_reset = false, quarantined = false, state_reason = NULL, updated_at = now()
     WHERE id = $1 AND epoch = $2 AND state = 'reclaiming'`,
    [id, epoch],
  );
  return rowCount > 0;
}

export async function quarantineDevice(q: Queryable, id: string, epoch: number, reason: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE devices SET state = 'broken', quarantined = true, needs_reset = true, session_id = NULL, state_reason = $3, updated_at = now()
     WHERE id = $1 AND epoch = $2`,
    [id, epoch, reason],
  );
  return rowCount > 0;
}

/** The host could not be reached about the device: offline until it is back, then reset. */
export async function setDeviceUnreachable(q: Queryable, id: string, epoch: number, reason: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE devices SET state = 'offline', needs_reset = true, session_id = NULL, state_reason = $3, updated_at = now()
     WHERE id = $1 AND epoch = $2`,
    [id, epoch, reason],
  );
  return rowCount > 0;
}

/** Every device that a matching request could ever be placed on (any state, as long as its host reports it). */
export async function reportedDevicesOfPlatform(q: Queryable, platform: string): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE platform = $1 AND reported ORDER BY id`, [platform]);
  return rows;
}

export async function countQuarantined(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM devices WHERE quarantined`);
  return rows[0]?.n ?? 0;
}

export interface DeviceFilter {
  platform?: string | undefined;
  state?: string | undefined;
  hostId?: string | undefined;
}

export async function listDevices(q: Queryable, f: DeviceFilter): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(
    `SELECT * FROM devices
     WHERE ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR host_id = $3)
     ORDER BY host_id, local_id`,
    [f.platform ?? null, f.state ?? null, f.hostId ?? null],
  );
  return rows;
}

export async function getDevice(q: Queryable, id: string): Promise<DeviceRow | undefined> {
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE id = $1`, [id]);
  return rows[0];
}

export async function countDevicesByState(q: Queryable): Promise<{ state: string; platform: string; n: number }[]> {
  const { rows } = await q.query<{ state: string; platform: string; n: number }>(
    `SELECT state, platform, count(*)::int AS n FROM devices GROUP BY state, platform`,
  );
  return rows;
}

export async function devicesByIds(q: Queryable, ids: readonly string[]): Promise<DeviceRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE id = ANY($1::text[])`, [ids]);
  return rows;
}

/**
 * Devices a lost reply or a dead gateway left behind on a connected host: offline but needing a
 * reset, or stuck resetting past `stuckMs`. Each is claimed here (reclaiming, a fresh epoch).
 */
export async function claimDevicesToRecover(
  q: Queryable,
  stuckMs: number,
  pause?: PauseAllowance,
): Promise<{ id: string; host_id: string; local_id: string; epoch: number }[]> {
  const { rows } = await q.query<{ id: string; host_id: string; local_id: string; epoch: number }>(
    `UPDATE devices d SET state = 'reclaiming', needs_reset = true, session_id = NULL, epoch = d.epoch + 1,
       state_reason = 'resetting (recovered)', updated_at = now()
     WHERE d.id IN (
       SELECT d2.id FROM devices d2 JOIN hosts h ON h.id = d2.host_id
       WHERE h.state = 'online' AND h.connection_id IS NOT NULL AND d2.reported AND d2.health = 'ready' AND NOT d2.quarantined
         AND ((d2.state = 'offline' AND d2.needs_reset)
           OR (d2.state = 'reclaiming' AND ${deadlinePassed('d2.updated_at', `($1::double precision * interval '1 millisecond')`, '$2', '$3')}))
       FOR UPDATE OF d2 SKIP LOCKED)
     RETURNING d.id, d.host_id, d.local_id, d.epoch`,
    [stuckMs, ...allowanceParams(pause)],
  );
  return rows.map((r) => ({ ...r, epoch: Number(r.epoch) }));
}

/** What keeps a queued request's devices from it: the farm's devices it fits, and who holds them. */
export interface Holders {
  /** Reported devices the request fits. */
  matching: number;
  /** Of those, held by a session (preparing or leased). */
  held: number;
  /** How many sessions hold them. */
  sessions: number;
  /** Of those, broken, offline or being reset. */
  unavailable: number;
  /** The earliest a session of the request's own team ends by, if one holds such a device. */
  teamEarliest: { id: string; expiresAt: Date } | null;
}

export async function holdersFor(q: Queryable, sessionId: string): Promise<Holders> {
  const { rows } = await q.query<Omit<Holders, 'teamEarliest'> & { team_id: string | null; team_expires: Date | null }>(
    `SELECT count(d.id)::int AS matching,
       count(d.id) FILTER (WHERE d.session_id IS NOT NULL)::int AS held,
       count(DISTINCT d.session_id)::int AS sessions,
       count(d.id) FILTER (WHERE d.session_id IS NULL AND d.state <> 'available')::int AS unavailable,
       (array_agg(h.id ORDER BY h.expires_at) FILTER (WHERE h.team = s.team AND h.expires_at IS NOT NULL))[1] AS team_id,
       min(h.expires_at) FILTER (WHERE h.team = s.team) AS team_expires
     FROM sessions s
     LEFT JOIN devices d ON d.reported AND ${requestFitsDevice('s', 'd')}
     LEFT JOIN sessions h ON h.id = d.session_id
     WHERE s.id = $1
     GROUP BY s.id`,
    [sessionId],
  );
  const r = rows[0];
  if (!r) return { matching: 0, held: 0, sessions: 0, unavailable: 0, teamEarliest: null };
  return {
    matching: r.matching,
    held: r.held,
    sessions: r.sessions,
    unavailable: r.unavailable,
    teamEarliest: r.team_id && r.team_expires ? { id: r.team_id, expiresAt: r.team_expires } : null,
  };
}
