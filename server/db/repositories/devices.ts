// SQL for devices. The farm's state for a device (available, leased, ...) is decided by the
// domain; this module only reads and writes it.
import type { Queryable } from '../database.js';
import type { Schemas } from '../../../openapi/contract.js';

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
  first_seen_at: Date;
  updated_at: Date;
}

export type DeviceWrite = Omit<DeviceRow, 'first_seen_at' | 'updated_at'>;

export async function lockDevicesOfHost(q: Queryable, hostId: string): Promise<DeviceRow[]> {
  const { rows } = await q.query<DeviceRow>(`SELECT * FROM devices WHERE host_id = $1 ORDER BY local_id FOR UPDATE`, [hostId]);
  return rows;
}

export async function upsertDevice(q: Queryable, d: DeviceWrite): Promise<void> {
  await q.query(
    `INSERT INTO devices (id, host_id, local_id, platform, backend, model, os, name, labels, health, reported, state, state_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13)
     ON CONFLICT (id) DO UPDATE SET
       platform = excluded.platform, backend = excluded.backend, model = excluded.model, os = excluded.os,
       name = excluded.name, labels = excluded.labels, health = excluded.health, reported = excluded.reported,
       state = excluded.state, state_reason = excluded.state_reason, updated_at = now()`,
    [d.id, d.host_id, d.local_id, d.platform, d.backend, d.model, d.os, d.name, JSON.stringify(d.labels), d.health, d.reported, d.state, d.state_reason],
  );
}

export async function setDevicesOfHostsOffline(q: Queryable, hostIds: readonly string[], reason: string): Promise<number> {
  if (hostIds.length === 0) return 0;
  const { rowCount } = await q.query(
    `UPDATE devices SET state = 'offline', state_reason = $2, updated_at = now()
     WHERE host_id = ANY($1::text[]) AND (state <> 'offline' OR state_reason IS DISTINCT FROM $2)`,
    [hostIds, reason],
  );
  return rowCount;
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
