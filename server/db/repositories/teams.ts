// SQL for teams: fairness weights, quotas, and the usage placement weighs them against.
import type { Queryable } from '../database.js';

export interface TeamRow {
  name: string;
  weight: number;
  max_sessions: number | null;
  active: number;
  queued: number;
  recent: number;
}

export async function ensureTeam(q: Queryable, name: string): Promise<void> {
  await q.query(`INSERT INTO teams (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [name]);
}

export async function putTeam(q: Queryable, name: string, weight: number, maxSessions: number | null): Promise<void> {
  await q.query(
    `INSERT INTO teams (name, weight, max_sessions) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET weight = excluded.weight, max_sessions = excluded.max_sessions`,
    [name, weight, maxSessions],
  );
}

/** Every team with its active and queued sessions and its placements within the fairness window. */
export async function teamUsage(q: Queryable, windowMs: number): Promise<TeamRow[]> {
  const { rows } = await q.query<TeamRow>(
    `SELECT t.name, t.weight, t.max_sessions,
       count(*) FILTER (WHERE s.state IN ('preparing', 'ready'))::int AS active,
       count(*) FILTER (WHERE s.state = 'queued')::int AS queued,
       count(*) FILTER (WHERE s.placed_at > now() - ($1::double precision * interval '1 millisecond'))::int AS recent
     FROM teams t LEFT JOIN sessions s ON s.team = t.name AND (s.state <> 'ended' OR s.placed_at > now() - ($1::double precision * interval '1 millisecond'))
     GROUP BY t.name ORDER BY t.name`,
    [windowMs],
  );
  return rows;
}
