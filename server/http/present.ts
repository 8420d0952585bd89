// Rows to contract shapes. Timestamps leave as RFC 3339 strings.
import type { Schemas } from '../../openapi/contract.js';
import type { DeviceRow } from '../db/repositories/devices.js';
import type { HostRow } from '../db/repositories/hosts.js';
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
