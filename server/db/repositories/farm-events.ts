// The farm's event log (migration 0006): rows are written by triggers; here they are read back in
// order for the farm stream, and pruned.
import type { Queryable } from '../database.js';

export interface FarmEventRow {
  seq: number;
  at: Date;
  kind: 'host' | 'device' | 'quarantine' | 'session' | 'queue';
  subject: string;
  team: string | null;
}

export async function farmEventsAfter(q: Queryable, after: number, limit: number): Promise<FarmEventRow[]> {
  const { rows } = await q.query<FarmEventRow & { seq: string }>(`SELECT seq, at, kind, subject, team FROM farm_events WHERE seq > $1 ORDER BY seq LIMIT $2`, [
    after,
    limit,
  ]);
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/** The newest seq written (0 when none) and the oldest still kept (null when none). */
export async function farmEventBounds(q: Queryable): Promise<{ newest: number; oldest: number | null }> {
  const { rows } = await q.query<{ newest: string | null; oldest: string | null }>(`SELECT max(seq) AS newest, min(seq) AS oldest FROM farm_events`);
  return { newest: Number(rows[0]?.newest ?? 0), oldest: rows[0]?.oldest == null ? null : Number(rows[0].oldest) };
}

export async function pruneFarmEvents(q: Queryable, olderThanMs: number): Promise<number> {
  const { rowCount } = await q.query(`DELETE FROM farm_events WHERE at < now() - ($1 || ' milliseconds')::interval`, [String(olderThanMs)]);
  return rowCount;
}
