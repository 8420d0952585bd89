// Sessions as the API sees them: create (with idempotency), read, long-poll, list, renew,
// release, and the admin's queue and team controls. A session belongs to its team: other teams
// are told it does not exist (404, so ids do not leak).
import { createHash, randomBytes } from 'node:crypto';
import { systemTimers, type Timers } from '../../timers.js';
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import { sqlState, type Database } from '../../db/database.js';
import { recordAudit } from '../../db/repositories/audit.js';
import * as devices from '../../db/repositories/devices.js';
import * as hosts from '../../db/repositories/hosts.js';
import * as sessions from '../../db/repositories/sessions.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import * as teams from '../../db/repositories/teams.js';
import { ApiError } from '../../errors.js';
import { a } from '../../words.js';
import type { Principal } from '../tokens.js';
import type { SessionEvents } from './events.js';
import type { DeviceLifecycle } from './lifecycle.js';
import { CLASS_NAMES, effectiveClass, matches } from './placement.js';
import { checkAppUrl } from './origins.js';
import type { Placer } from './placer.js';
import { endSessionTx } from './transitions.js';
import { queueTimeoutDetail } from './queue-timeout.js';

export interface SessionLimits {
  defaultTtlSeconds: number;
  maxTtlMs: number;
  defaultIdleSeconds: number;
  defaultWaitSeconds: number;
  /** How long POST /v1/sessions waits for a placed device to become ready before answering 202. */
  createWaitMs: number;
  agingMs: number;
  teamMaxSessions: number;
  origins: Schemas['OriginRules'];
}

const APP_FOR_PLATFORM: Record<Schemas['Platform'], keyof Schemas['AppTarget']> = { web: 'url', ios: 'bundleId', android: 'package' };

export class SessionService {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly placer: Placer,
    private readonly lifecycle: DeviceLifecycle,
    private readonly events: SessionEvents,
    private readonly limits: SessionLimits,
    private readonly logger: Logger,
    private readonly timers: Timers = systemTimers,
  ) {}

  async create(principal: Principal, body: Schemas['SessionCreate'], idempotencyKey: string | undefined): Promise<SessionRow> {
    const app = body.app ?? null;
    if (app && !(APP_FOR_PLATFORM[body.platform] in app)) {
      throw validation('app', `${a(body.platform)} session takes app.${APP_FOR_PLATFORM[body.platform]}`);
    }
    if (app?.url) checkAppUrl(app.url, this.limits.origins);
    const ttlSeconds = body.ttlSeconds ?? this.limits.defaultTtlSeconds;
    this.checkTtl(ttlSeconds);
    const requestHash = createHash('sha256').update(stableJson(body)).digest('hex');
    if (idempotencyKey) {
      const existing = await sessions.findByIdempotencyKey(this.db, principal.team, idempotencyKey);
      if (existing) return this.replay(existing, requestHash);
    }
    await this.assertSatisfiable(body.platform, body.device ?? {});
    let row: SessionRow;
    try {
      row = await this.db.transaction(async (tx) => {
        await teams.ensureTeam(tx, principal.team);
        const inserted = await sessions.insertSession(tx, {
          id: `ses_${randomBytes(10).toString('hex')}`,
          team: principal.team,
          tokenId: principal.tokenId,
          platform: body.platform,
          requirements: body.device ?? {},
          app,
          priority: body.priority ?? 'ci',
          ttlSeconds,
          idleTimeoutSeconds: body.idleTimeoutSeconds ?? this.limits.defaultIdleSeconds,
          waitSeconds: body.waitSeconds ?? this.limits.defaultWaitSeconds,
          idempotencyKey: idempotencyKey ?? null,
          requestHash,
        });
        await recordAudit(tx, {
          actor: principal.tokenId,
          actorRole: principal.role,
          team: principal.team,
          action: 'session.create',
          subject: inserted.id,
          detail: { platform: body.platform, priority: inserted.priority, requirements: body.device ?? {} },
        });
        await sessions.notifyPlacement(tx);
        return inserted;
      });
    } catch (err) {
      // Two retries with one key raced: the loser answers what the winner created.
      if (idempotencyKey && sqlState(err) === '23505') {
        const existing = await sessions.findByIdempotencyKey(this.db, principal.team, idempotencyKey);
        if (existing) return this.replay(existing, requestHash);
      }
      throw err;
    }
    await this.placer.runNow().catch((err: unknown) => this.logger.warn({ err }, 'placement on create failed; the placer will retry'));
    let now = (await sessions.getSession(this.db, row.id))!;
    if (now.state === 'queued' && (body.waitSeconds ?? this.limits.defaultWaitSeconds) === 0) {
      const detail = await queueTimeoutDetail(this.db, now, 'waitSeconds is 0 and no matching device was free');
      now = (await this.endNow(now, 'queue-timeout', detail, null)) ?? now;
    }
    if (now.state === 'preparing') now = await this.waitUntil(now, this.limits.createWaitMs, (s) => s.state !== 'preparing');
    return now;
  }

  async get(principal: Principal, id: string): Promise<SessionRow> {
    const row = await sessions.getSession(this.db, id);
    if (!row || (principal.role !== 'admin' && row.team !== principal.team)) {
      throw new ApiError('NOT_FOUND', { message: `no session ${id}`, hint: "GET /v1/sessions lists your team's sessions" });
    }
    return row;
  }

  /**
   * The session once it has left `ifState` (default: the state it is in now), or as it is after
   * `waitSeconds`.
   */
  async getAfterChange(principal: Principal, id: string, waitSeconds: number, ifState: sessions.SessionStateName | undefined): Promise<SessionRow> {
    const row = await this.get(principal, id);
    // As with streams and perception: a viewer looking on does not keep someone else's lease.
    if (principal.role !== 'viewer') this.touch(row);
    const from = ifState ?? row.state;
    if (waitSeconds <= 0 || row.state === 'ended' || row.state !== from) return row;
    return this.waitUntil(row, waitSeconds * 1000, (s) => s.state !== from);
  }

  async list(principal: Principal, state: string | undefined, limit: number): Promise<SessionRow[]> {
    return sessions.listSessions(this.db, { team: principal.role === 'admin' ? null : principal.team, state, limit });
  }

  async renew(principal: Principal, id: string, ttlSeconds: number | undefined): Promise<SessionRow> {
    const row = await this.get(principal, id);
    if (row.state === 'ended') throw ended(row);
    if (row.state === 'queued')
      throw new ApiError('VALIDATION_FAILED', {
        message: 'a queued session has no lease to renew yet',
        hint: 'renew once it is ready (GET /v1/sessions/{id}?wait=60)',
      });
    const ttl = ttlSeconds ?? row.ttl_seconds;
    this.checkTtl(ttl);
    const renewed = await this.db.transaction(async (tx) => {
      const r = await sessions.renew(tx, id, ttl);
      if (!r) return undefined;
      await sessions.notifySessionEvent(tx, { id, seq: Number(r.event_seq), kind: 'session' });
      await recordAudit(tx, {
        actor: principal.tokenId,
        actorRole: principal.role,
        team: row.team,
        action: 'session.renew',
        subject: id,
        detail: { ttlSeconds: ttl },
      });
      return r;
    });
    if (!renewed) throw ended((await sessions.getSession(this.db, id))!);
    return renewed;
  }

  /** Ends the session; a second release answers the ended session again. */
  async release(principal: Principal, id: string): Promise<SessionRow> {
    const row = await this.get(principal, id);
    if (row.state === 'ended') return row;
    return (await this.endNow(row, 'released', null, principal)) ?? (await this.get(principal, id));
  }

  async cancelQueued(admin: Principal, id: string): Promise<SessionRow> {
    const row = await this.get(admin, id);
    if (row.state !== 'queued')
      throw new ApiError('SESSION_ENDED', { message: `session ${id} is ${row.state}, not queued`, details: { state: row.state, endReason: row.end_reason } });
    const out = await this.endNow(row, 'cancelled', 'cancelled by an admin', admin);
    if (!out) throw new ApiError('SESSION_ENDED', { message: `session ${id} left the queue meanwhile` });
    return out;
  }

  /** Activity keeps a session from idling out; written at most once a second per session. */
  touch(row: Pick<SessionRow, 'id' | 'state'>): void {
    if (row.state !== 'ready' && row.state !== 'preparing') return;
    const now = this.timers.wall();
    if (now - (this.touched.get(row.id) ?? 0) < 1000) return;
    this.touched.set(row.id, now);
    if (this.touched.size > 10_000) this.touched.clear();
    sessions.touch(this.db, row.id).catch((err: unknown) => this.logger.warn({ err, sessionId: row.id }, 'could not record session activity'));
  }

  async queuePlace(row: SessionRow): Promise<Schemas['QueuePlace'] | null> {
    if (row.state !== 'queued') return null;
    const position = await sessions.queuePosition(this.db, row, this.limits.agingMs);
    const interval = await sessions.recentPlacementInterval(this.db, row.platform);
    return { position, etaSeconds: interval === null ? null : Math.round(interval * position * 10) / 10 };
  }

  async queue(): Promise<{ row: SessionRow; effective: Schemas['Priority']; waitedSeconds: number }[]> {
    const now = Date.now();
    const rows = await sessions.allQueued(this.db);
    return rows
      .map((row) => ({ row, klass: effectiveClass(row.priority, new Date(row.created_at).getTime(), now, this.limits.agingMs) }))
      .sort((a, b) => a.klass - b.klass || new Date(a.row.created_at).getTime() - new Date(b.row.created_at).getTime())
      .map(({ row, klass }) => ({ row, effective: CLASS_NAMES[klass]!, waitedSeconds: (now - new Date(row.created_at).getTime()) / 1000 }));
  }

  async teams(): Promise<Schemas['Team'][]> {
    return (await teams.teamUsage(this.db, 0)).map((t) => ({
      name: t.name,
      weight: t.weight,
      maxConcurrentSessions: t.max_sessions,
      activeSessions: t.active,
      queuedSessions: t.queued,
    }));
  }

  async putTeam(admin: Principal, name: string, settings: Schemas['TeamSettings']): Promise<Schemas['Team']> {
    await this.db.transaction(async (tx) => {
      await teams.putTeam(tx, name, settings.weight, settings.maxConcurrentSessions ?? null);
      await recordAudit(tx, { actor: admin.tokenId, actorRole: admin.role, team: name, action: 'team.update', subject: name, detail: { ...settings } });
      await sessions.notifyPlacement(tx);
    });
    return (await this.teams()).find((t) => t.name === name)!;
  }

  async resetDevice(admin: Principal, deviceId: string): Promise<void> {
    const device = await devices.getDevice(this.db, deviceId);
    if (!device) throw new ApiError('NOT_FOUND', { message: `no device ${deviceId}` });
    if (device.state === 'leased' || device.state === 'preparing' || device.state === 'offline') {
      throw new ApiError('DEVICE_BUSY', {
        message: `device ${deviceId} is ${device.state}; only an idle device can be reset`,
        hint: device.state === 'offline' ? 'its host must be online' : 'release its session first',
      });
    }
    await recordAudit(this.db, {
      actor: admin.tokenId,
      actorRole: admin.role,
      team: null,
      action: 'device.reset',
      subject: deviceId,
      detail: { previousState: device.state, reason: device.state_reason },
    });
    void this.lifecycle
      .startReclaim(deviceId, 'reset by an admin')
      .catch((err: unknown) => this.logger.error({ err, deviceId }, 'admin reset could not be recorded'));
  }

  private async endNow(row: SessionRow, reason: sessions.EndReason, detail: string | null, actor: Principal | null): Promise<SessionRow | undefined> {
    const { ended: out, job } = await this.db.transaction(async (tx) => {
      const locked = await sessions.getSession(tx, row.id, true);
      if (!locked || locked.state === 'ended') return { ended: locked, job: undefined };
      return endSessionTx(tx, locked, reason, detail, { reclaim: true, ...(actor ? { actor: { tokenId: actor.tokenId, role: actor.role } } : {}) });
    });
    if (job) void this.lifecycle.reclaim(job).catch((err: unknown) => this.logger.error({ err, deviceId: job.deviceId }, 'device reset could not be recorded'));
    return out;
  }

  private async waitUntil(row: SessionRow, timeoutMs: number, done: (s: SessionRow) => boolean): Promise<SessionRow> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let reading = false;
      let again = false;
      const finish = (value: SessionRow | Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      // A notice that lands while a read is in flight must not be lost: that read may predate it.
      const check = () => {
        if (settled) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        sessions.getSession(this.db, row.id).then((s) => {
          reading = false;
          if (s && (done(s) || s.state === 'ended')) return finish(s);
          if (again) {
            again = false;
            check();
          }
        }, finish);
      };
      const unsubscribe = this.events.subscribe(row.id, (notice) => {
        if (!notice || notice.seq > Number(row.event_seq)) check();
      });
      const timer = setTimeout(() => sessions.getSession(this.db, row.id).then((s) => finish(s ?? row), finish), timeoutMs);
      check(); // it may have changed before we subscribed
    });
  }

  private replay(existing: SessionRow, requestHash: string): SessionRow {
    if (existing.request_hash !== requestHash) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', { details: { sessionId: existing.id } });
    }
    return existing;
  }

  private checkTtl(ttlSeconds: number): void {
    if (ttlSeconds * 1000 > this.limits.maxTtlMs) {
      throw validation('ttlSeconds', `must be <= ${Math.floor(this.limits.maxTtlMs / 1000)} (the farm's SIMFLEET_SESSION_MAX_TTL_MS)`);
    }
  }

  private async assertSatisfiable(platform: Schemas['Platform'], requirements: Schemas['DeviceRequirements']): Promise<void> {
    const candidates = await devices.reportedDevicesOfPlatform(this.db, platform);
    if (candidates.some((d) => matches({ platform, requirements }, { id: d.id, platform: d.platform, model: d.model, os: d.os, labels: d.labels }))) return;
    // A backend still starting has not said which devices it offers: the request waits for it.
    if ((await hosts.countStartingBackends(this.db, platform)) > 0) return;
    const seen = [...new Set(candidates.map((d) => `${d.model} / ${d.os}${d.labels.length ? ` [${d.labels.join(', ')}]` : ''}`))].slice(0, 10);
    throw new ApiError('NO_MATCHING_DEVICE', {
      message: `no ${platform} device in the farm matches ${JSON.stringify(requirements)}`,
      hint: seen.length ? `the farm's ${platform} devices: ${seen.join('; ')}` : await this.noDeviceHint(platform),
      details: { platform, requirements },
    });
  }

  /** No device of the platform at all: a backend that cannot run says why and how to fix it here, not two calls away. */
  private async noDeviceHint(platform: Schemas['Platform']): Promise<string> {
    const down = await hosts.unavailableBackends(this.db, platform);
    if (!down.length) return `no host reports a device for platform ${platform}; GET /v1/hosts shows each host's backends and why one is unavailable`;
    return down.map((b) => `host ${b.host} cannot run ${platform} devices: ${b.detail ?? 'no detail'}${b.hint ? `; fix: ${b.hint}` : ''}`).join('; ');
  }
}

function validation(field: string, reason: string): ApiError {
  return new ApiError('VALIDATION_FAILED', { message: `body.${field} ${reason}`, details: { in: 'body', field, reason } });
}

/** SESSION_ENDED for an ended session, with why and when. */
export function ended(row: SessionRow): ApiError {
  return new ApiError('SESSION_ENDED', {
    message: `session ${row.id} has ended (${row.end_reason})`,
    details: { endReason: row.end_reason, endDetail: row.end_detail, endedAt: row.ended_at },
  });
}

/** JSON with sorted keys, so one body always hashes the same. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
