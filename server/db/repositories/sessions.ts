// SQL for sessions (leases) and the queue. State transitions are guarded in their WHERE clauses,
// so a transition that lost a race changes nothing and says so (undefined / empty).
import type { Queryable } from '../database.js';
import type { Schemas } from '../../../openapi/contract.js';
import { requestFitsDevice } from './request-fits.js';
import { allowanceParams, deadlinePassed, type PauseAllowance } from './pause-allowance.js';

export type SessionStateName = Schemas['SessionState'];
export type EndReason = Schemas['EndReason'];

export interface SessionRow {
  id: string;
  team: string;
  token_id: string | null;
  state: SessionStateName;
  end_reason: EndReason | null;
  end_detail: string | null;
  platform: Schemas['Platform'];
  requirements: Schemas['DeviceRequirements'];
  app: Schemas['AppTarget'] | null;
  priority: Schemas['Priority'];
  ttl_seconds: number;
  idle_timeout_seconds: number;
  device_id: string | null;
  host_id: string | null;
  epoch: number | null;
  prepare_attempts: number;
  idempotency_key: string | null;
  request_hash: string | null;
  event_seq: number;
  created_at: Date;
  queue_deadline: Date | null;
  placed_at: Date | null;
  ready_at: Date | null;
  expires_at: Date | null;
  last_activity_at: Date;
  expiring_notified: 'idle' | 'ttl' | null;
  ended_at: Date | null;
}

export interface NewSession {
  id: string;
  team: string;
  tokenId: string | null;
  platform: string;
  requirements: Schemas['DeviceRequirements'];
  app: Schemas['AppTarget'] | null;
  priority: string;
  ttlSeconds: number;
  idleTimeoutSeconds: number;
  waitSeconds: number;
  idempotencyKey: string | null;
  requestHash: string;
}

export async function insertSession(q: Queryable, s: NewSession): Promise<SessionRow> {
  const { rows } = await q.query<SessionRow>(
    `INSERT INTO sessions (id, team, token_id, state, platform, requirements, app, priority, ttl_seconds, idle_timeout_seconds,
                           idempotency_key, request_hash, queue_deadline)
     VALUES ($1, $2, $3, 'queued', $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $11, now() + ($12::double precision * interval '1 second'))
     RETURNING *`,
    [
      s.id,
      s.team,
      s.tokenId,
      s.platform,
      JSON.stringify(s.requirements),
      s.app ? JSON.stringify(s.app) : null,
      s.priority,
      s.ttlSeconds,
      s.idleTimeoutSeconds,
      s.idempotencyKey,
      s.requestHash,
      s.waitSeconds,
    ],
  );
  return rows[0]!;
}

export async function getSession(q: Queryable, id: string, forUpdate = false): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function findByIdempotencyKey(q: Queryable, team: string, key: string): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE team = $1 AND idempotency_key = $2`, [team, key]);
  return rows[0];
}

export async function listSessions(q: Queryable, f: { team: string | null; state?: string | undefined; limit: number }): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(
    `SELECT * FROM sessions WHERE ($1::text IS NULL OR team = $1) AND ($2::text IS NULL OR state = $2)
     ORDER BY created_at DESC, id LIMIT $3`,
    [f.team, f.state ?? null, f.limit],
  );
  return rows;
}

/** Whether a host serves a session of this team now, or served one that ended within `withinMs`. */
export async function hostServesTeam(q: Queryable, hostId: string, team: string, withinMs: number): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM sessions WHERE host_id = $1 AND team = $2 AND (state IN ('preparing', 'ready') OR ended_at > now() - ($3 || ' milliseconds')::interval) LIMIT 1`,
    [hostId, team, String(withinMs)],
  );
  return rows.length > 0;
}

/** Sessions not yet ended, of one team (or every team with null), oldest first. */
export async function activeSessions(q: Queryable, team: string | null): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE state <> 'ended' AND ($1::text IS NULL OR team = $1) ORDER BY created_at, id`, [
    team,
  ]);
  return rows;
}

/** What a queued request is matched against: one free device's platform and traits. */
export interface FreeDeviceTraits {
  platform: string;
  model: string | null;
  os: string | null;
  labels: readonly string[];
}

/**
 * Queued requests that one of the given free devices could serve (the same test as placement's
 * `matches`): per team and effective class, its oldest `perGroup` such requests (a run never places
 * more than that many for one group), skipping rows another gateway holds. Bounded however long the
 * queue grows. Requests no free device fits are left out before the cut, or a team's older requests
 * for a busy device type would hide its newer ones that a free device fits.
 */
export async function lockQueued(q: Queryable, free: readonly FreeDeviceTraits[], perGroup: number, agingMs: number): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(
    `SELECT * FROM sessions WHERE id IN (
       SELECT id FROM (
         SELECT s.id, row_number() OVER (PARTITION BY s.team, ${KLASS.replace('$AGING', '$3')} ORDER BY s.created_at, s.id) AS rn
         FROM sessions s WHERE s.state = 'queued' AND s.queue_deadline > now()
           AND EXISTS (
             SELECT 1 FROM jsonb_to_recordset($1::jsonb) AS d(platform text, model text, os text, labels jsonb)
             WHERE ${requestFitsDevice('s', 'd')})
       ) ranked WHERE rn <= $2)
       -- repeated here: a row changed before we lock it is re-checked against this WHERE only
       AND state = 'queued'
     ORDER BY created_at, id FOR UPDATE SKIP LOCKED`,
    [JSON.stringify(free.map((d) => ({ platform: d.platform, model: d.model, os: d.os, labels: d.labels }))), perGroup, agingMs],
  );
  return rows;
}

export async function allQueued(q: Queryable): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE state = 'queued' ORDER BY created_at, id`);
  return rows;
}

export async function markPlaced(q: Queryable, sessionId: string, deviceId: string, hostId: string, epoch: number): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET state = 'preparing', device_id = $2, host_id = $3, epoch = $4, placed_at = now(),
       prepare_attempts = prepare_attempts + 1, event_seq = event_seq + 1, last_activity_at = now()
     WHERE id = $1 AND state = 'queued' RETURNING *`,
    [sessionId, deviceId, hostId, epoch],
  );
  return rows[0];
}

export async function markReady(q: Queryable, sessionId: string, epoch: number): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET state = 'ready', ready_at = now(), last_activity_at = now(), expiring_notified = NULL,
       expires_at = now() + (ttl_seconds * interval '1 second'), event_seq = event_seq + 1
     WHERE id = $1 AND state = 'preparing' AND epoch = $2 RETURNING *`,
    [sessionId, epoch],
  );
  return rows[0];
}

/** Back to the queue after a failed prepare; it keeps its created_at, and so its place. */
export async function requeue(q: Queryable, sessionId: string, epoch: number): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET state = 'queued', device_id = NULL, host_id = NULL, epoch = NULL, placed_at = NULL, event_seq = event_seq + 1
     WHERE id = $1 AND state = 'preparing' AND epoch = $2 RETURNING *`,
    [sessionId, epoch],
  );
  return rows[0];
}

export async function endSession(q: Queryable, sessionId: string, reason: EndReason, detail: string | null): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET state = 'ended', end_reason = $2, end_detail = $3, ended_at = now(), event_seq = event_seq + 1
     WHERE id = $1 AND state <> 'ended' RETURNING *`,
    [sessionId, reason, detail],
  );
  return rows[0];
}

export async function renew(q: Queryable, sessionId: string, ttlSeconds: number): Promise<SessionRow | undefined> {
  const { rows } = await q.query<SessionRow>(
    `UPDATE sessions SET ttl_seconds = $2::int, expires_at = now() + ($2::int * interval '1 second'), last_activity_at = now(),
       expiring_notified = NULL, event_seq = event_seq + 1
     WHERE id = $1 AND state IN ('preparing', 'ready') RETURNING *`,
    [sessionId, ttlSeconds],
  );
  return rows[0];
}

export async function touch(q: Queryable, sessionId: string): Promise<void> {
  await q.query(`UPDATE sessions SET last_activity_at = now(), expiring_notified = NULL WHERE id = $1 AND state IN ('preparing', 'ready')`, [sessionId]);
}

/** Active sessions held on any of these devices (locked for ending). */
export async function lockActiveOnDevices(q: Queryable, deviceIds: readonly string[]): Promise<SessionRow[]> {
  if (deviceIds.length === 0) return [];
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE device_id = ANY($1::text[]) AND state IN ('preparing', 'ready') FOR UPDATE`, [
    deviceIds,
  ]);
  return rows;
}

export async function lockActiveOnHosts(q: Queryable, hostIds: readonly string[]): Promise<SessionRow[]> {
  if (hostIds.length === 0) return [];
  const { rows } = await q.query<SessionRow>(`SELECT * FROM sessions WHERE host_id = ANY($1::text[]) AND state IN ('preparing', 'ready') FOR UPDATE`, [
    hostIds,
  ]);
  return rows;
}

/** Sessions preparing for longer than any prepare may take: the gateway running it is gone. */
// The stuck-prepare, queue and idle deadlines allow this gateway's pauses (pause-allowance.ts); a
// lease's TTL does not: it is a promise to the teams waiting for the device.

export async function lockStuckPreparing(q: Queryable, stuckMs: number, pause?: PauseAllowance): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(
    `SELECT * FROM sessions WHERE state = 'preparing' AND ${deadlinePassed('placed_at', `($1::double precision * interval '1 millisecond')`, '$2', '$3')} FOR UPDATE SKIP LOCKED`,
    [stuckMs, ...allowanceParams(pause)],
  );
  return rows;
}

export async function lockQueueTimedOut(q: Queryable, pause?: PauseAllowance): Promise<SessionRow[]> {
  const { rows } = await q.query<SessionRow>(
    `SELECT * FROM sessions WHERE state = 'queued' AND ${deadlinePassed('queue_deadline', `interval '0'`, '$1', '$2')} FOR UPDATE SKIP LOCKED`,
    allowanceParams(pause),
  );
  return rows;
}

export async function lockExpired(q: Queryable, pause?: PauseAllowance): Promise<{ row: SessionRow; reason: 'expired' | 'idle' }[]> {
  const { rows } = await q.query<SessionRow & { why: 'expired' | 'idle' }>(
    `SELECT *, CASE WHEN expires_at <= now() THEN 'expired' ELSE 'idle' END AS why FROM sessions
     WHERE (state IN ('preparing', 'ready') AND expires_at <= now())
        OR (state = 'ready' AND ${deadlinePassed('last_activity_at', `(idle_timeout_seconds * interval '1 second')`, '$1', '$2')})
     FOR UPDATE SKIP LOCKED`,
    allowanceParams(pause),
  );
  return rows.map(({ why, ...row }) => ({ row: row as SessionRow, reason: why }));
}

/** Sessions close to an idle or TTL expiry that have not been warned yet; marks them warned. */
export async function takeExpiryWarnings(q: Queryable, warnMaxMs: number): Promise<{ row: SessionRow; reason: 'idle' | 'ttl'; deadline: Date }[]> {
  const { rows } = await q.query<SessionRow & { reason: 'idle' | 'ttl'; deadline: Date }>(
    `WITH due AS (
       SELECT id,
         last_activity_at + (idle_timeout_seconds * interval '1 second') AS idle_at,
         expires_at AS ttl_at,
         -- warn at a quarter of the timeout before it, at most SIMFLEET_EXPIRY_WARNING_MS
         least($1::double precision, idle_timeout_seconds * 250.0) * interval '1 millisecond' AS idle_lead,
         least($1::double precision, ttl_seconds * 250.0) * interval '1 millisecond' AS ttl_lead
       FROM sessions WHERE state = 'ready' AND expiring_notified IS NULL
     ), pick AS (
       SELECT id, CASE WHEN ttl_at - ttl_lead <= now() AND ttl_at <= idle_at THEN 'ttl'
                       WHEN idle_at - idle_lead <= now() THEN 'idle'
                       WHEN ttl_at - ttl_lead <= now() THEN 'ttl' END AS reason,
              CASE WHEN ttl_at - ttl_lead <= now() AND ttl_at <= idle_at THEN ttl_at
                   WHEN idle_at - idle_lead <= now() THEN idle_at ELSE ttl_at END AS deadline
       FROM due
     )
     UPDATE sessions s SET expiring_notified = pick.reason, event_seq = s.event_seq + 1
     FROM pick WHERE s.id = pick.id AND pick.reason IS NOT NULL AND s.state = 'ready' AND s.expiring_notified IS NULL
     RETURNING s.*, pick.reason AS reason, pick.deadline AS deadline`,
    [warnMaxMs],
  );
  return rows.map(({ reason, deadline, ...row }) => ({ row: row as unknown as SessionRow, reason, deadline }));
}

export async function countByState(q: Queryable): Promise<{ state: string; n: number }[]> {
  const { rows } = await q.query<{ state: string; n: number }>(
    `SELECT state, count(*)::int AS n FROM sessions WHERE state <> 'ended' OR ended_at > now() - interval '1 hour' GROUP BY state`,
  );
  return rows;
}

export async function queueDepthByPriority(q: Queryable): Promise<{ priority: string; n: number }[]> {
  const { rows } = await q.query<{ priority: string; n: number }>(`SELECT priority, count(*)::int AS n FROM sessions WHERE state = 'queued' GROUP BY priority`);
  return rows;
}

const KLASS = `greatest(0, (CASE priority WHEN 'interactive' THEN 0 WHEN 'ci' THEN 1 ELSE 2 END)
                 - floor(extract(epoch FROM now() - created_at) * 1000 / $AGING))`;

/** How many queued requests of this platform would be placed before this one, by class then age. */
export async function queuePosition(q: Queryable, s: SessionRow, agingMs: number): Promise<number> {
  const klass = KLASS.replace('$AGING', '$5');
  const { rows } = await q.query<{ n: number }>(
    `WITH me AS (SELECT ${klass} AS k FROM sessions WHERE id = $1)
     SELECT count(*)::int AS n FROM sessions, me
     WHERE state = 'queued' AND platform = $2 AND id <> $1
       AND (${klass} < me.k OR (${klass} = me.k AND (created_at, id) < ($3::timestamptz, $4::text)))`,
    [s.id, s.platform, s.created_at, s.id, agingMs],
  );
  return (rows[0]?.n ?? 0) + 1;
}

/** Seconds between placements on this platform over the last 10 minutes (null: none to go on). */
export async function recentPlacementInterval(q: Queryable, platform: string): Promise<number | null> {
  const { rows } = await q.query<{ n: number; span: number | null }>(
    `SELECT count(*)::int AS n, extract(epoch FROM max(placed_at) - min(placed_at))::float8 AS span
     FROM sessions WHERE platform = $1 AND placed_at > now() - interval '10 minutes'`,
    [platform],
  );
  const r = rows[0];
  if (!r || r.n < 2 || !r.span) return null;
  return r.span / (r.n - 1);
}

export async function notifySessionEvent(
  q: Queryable,
  payload: { id: string; seq: number; kind: 'session' | 'expiring'; reason?: string; deadline?: string },
): Promise<void> {
  await q.query(`SELECT pg_notify('sf_session', $1)`, [JSON.stringify(payload)]);
}

export async function notifyPlacement(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('sf_placement', '')`);
}
