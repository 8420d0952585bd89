// Rows to contract shapes. Timestamps leave as RFC 3339 strings.
import type { Schemas } from '../../openapi/contract.js';
import type { DeviceRow } from '../db/repositories/devices.js';
import type { HostRow } from '../db/repositories/hosts.js';
import type { SessionRow } from '../db/repositories/sessions.js';
import type { TokenRow } from '../db/repositories/tokens.js';

const iso = (d: Date): string => new Date(d).toISOString();
const isoOrNull = (d: Date | null): string | null => (d ? iso(d) : null);

export function presentHost(h: HostRow): Schemas['Host'] {
  return {
    id: h.id,
    name: h.name,
    os: h.os,
    arch: h.arch,
    version: h.version,
    state: h.state,
    connected: h.connection_id !== null,
    backends: h.backends,
    deviceCount: h.device_count,
    registeredAt: iso(h.registered_at),
    connectedAt: isoOrNull(h.connected_at),
    lastSeenAt: iso(h.last_seen_at),
    offlineSince: isoOrNull(h.offline_since),
    strainedAt: isoOrNull(h.strained_at),
    textRecognition: h.text_recognition,
    checks: h.checks,
  };
}

export function presentDevice(d: DeviceRow): Schemas['Device'] {
  return {
    id: d.id,
    hostId: d.host_id,
    localId: d.local_id,
    platform: d.platform,
    backend: d.backend,
    model: d.model,
    os: d.os,
    name: d.name,
    labels: d.labels,
    state: d.state,
    stateReason: d.state_reason,
    updatedAt: iso(d.updated_at),
  };
}

export function presentToken(t: TokenRow): Schemas['Token'] {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    team: t.team,
    createdAt: iso(t.created_at),
    createdBy: t.created_by,
    revokedAt: isoOrNull(t.revoked_at),
    lastUsedAt: isoOrNull(t.last_used_at),
  };
}

export function presentSession(s: SessionRow, device: DeviceRow | undefined, queue: Schemas['QueuePlace'] | null): Schemas['Session'] {
  const holdsDevice = s.device_id !== null && device !== undefined;
  return {
    id: s.id,
    team: s.team,
    state: s.state,
    endReason: s.end_reason,
    endDetail: s.end_detail,
    platform: s.platform,
    priority: s.priority,
    requirements: s.requirements,
    app: s.app,
    device: holdsDevice
      ? { id: device.id, hostId: device.host_id, platform: device.platform, backend: device.backend, model: device.model, os: device.os, name: device.name }
      : null,
    host: s.host_id,
    epoch: s.epoch === null ? null : Number(s.epoch),
    ttlSeconds: s.ttl_seconds,
    idleTimeoutSeconds: s.idle_timeout_seconds,
    createdAt: iso(s.created_at),
    queueDeadline: s.state === 'queued' ? isoOrNull(s.queue_deadline) : null,
    placedAt: isoOrNull(s.placed_at),
    readyAt: isoOrNull(s.ready_at),
    expiresAt: isoOrNull(s.expires_at),
    lastActivityAt: iso(s.last_activity_at),
    endedAt: isoOrNull(s.ended_at),
    queue,
  };
}
