// SQL for the audit log: who did what, when, to which subject.
import type { Queryable } from '../database.js';

export interface AuditEntry {
  actor: string | null;
  actorRole: string | null;
  team: string | null;
  action: string;
  subject: string | null;
  detail?: Record<string, unknown>;
}

export async function recordAudit(q: Queryable, e: AuditEntry): Promise<void> {
  await q.query('INSERT INTO audit_log (actor, actor_role, team, action, subject, detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)', [
    e.actor,
    e.actorRole,
    e.team,
    e.action,
    e.subject,
    JSON.stringify(e.detail ?? {}),
  ]);
}

export interface AuditRow {
  id: number;
  at: Date;
  actor: string | null;
  actor_role: string | null;
  team: string | null;
  action: string;
  subject: string | null;
  detail: Record<string, unknown>;
}

export async function recentAudit(q: Queryable, limit: number): Promise<AuditRow[]> {
  const { rows } = await q.query<AuditRow>('SELECT * FROM audit_log ORDER BY id DESC LIMIT $1', [limit]);
  return rows;
}
