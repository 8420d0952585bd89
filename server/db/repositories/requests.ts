// Requests answered once (Idempotency-Key). The first request claims the key with its body's hash;
// a retry reads the stored answer, or waits while the first is still running.
import type { Queryable } from '../database.js';

export interface StoredRequest {
  route: string;
  request_hash: string;
  status: number | null;
  response: unknown;
}

/** Claims the key; false when another request holds it already. */
export async function claimRequest(q: Queryable, team: string, key: string, route: string, requestHash: string): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO request_results (team, key, route, request_hash) VALUES ($1, $2, $3, $4) ON CONFLICT (team, key) DO NOTHING`,
    [team, key, route, requestHash],
  );
  return rowCount === 1;
}

export async function getRequest(q: Queryable, team: string, key: string): Promise<StoredRequest | undefined> {
  const { rows } = await q.query<StoredRequest>(`SELECT route, request_hash, status, response FROM request_results WHERE team = $1 AND key = $2`, [team, key]);
  return rows[0];
}

export async function finishRequest(q: Queryable, team: string, key: string, status: number, response: unknown): Promise<void> {
  await q.query(`UPDATE request_results SET status = $3, response = $4 WHERE team = $1 AND key = $2`, [team, key, status, JSON.stringify(response)]);
}

/** A first run that failed before it answered: the key is released so that a retry runs afresh. */
export async function releaseRequest(q: Queryable, team: string, key: string): Promise<void> {
  await q.query(`DELETE FROM request_results WHERE team = $1 AND key = $2 AND status IS NULL`, [team, key]);
}

export async function pruneRequests(q: Queryable, olderThanMs: number): Promise<number> {
  const { rowCount } = await q.query(`DELETE FROM request_results WHERE created_at < now() - ($1 || ' milliseconds')::interval`, [String(olderThanMs)]);
  return rowCount;
}
