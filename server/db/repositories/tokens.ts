// SQL for bearer tokens. Secrets never reach this module: only their SHA-256.
import type { Queryable } from '../database.js';
import type { Role } from '../../../openapi/contract.js';

export interface TokenRow {
  id: string;
  name: string;
  role: Role;
  team: string;
  created_at: Date;
  created_by: string | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, name, role, team, created_at, created_by, revoked_at, last_used_at';

export async function insertToken(
  q: Queryable,
  t: { id: string; name: string; role: Role; team: string; secretHash: string; createdBy: string | null },
): Promise<TokenRow> {
  const { rows } = await q.query<TokenRow>(
    `INSERT INTO tokens (id, name, role, team, secret_hash, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [t.id, t.name, t.role, t.team, t.secretHash, t.createdBy],
  );
  return rows[0]!;
}

export async function findTokenBySecretHash(q: Queryable, secretHash: string): Promise<TokenRow | undefined> {
  const { rows } = await q.query<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE secret_hash = $1`, [secretHash]);
  return rows[0];
}

export async function getToken(q: Queryable, id: string): Promise<TokenRow | undefined> {
  const { rows } = await q.query<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE id = $1`, [id]);
  return rows[0];
}

export async function listTokens(q: Queryable, includeRevoked: boolean): Promise<TokenRow[]> {
  const { rows } = await q.query<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE $1 OR revoked_at IS NULL ORDER BY created_at DESC, id`, [includeRevoked]);
  return rows;
}

/** Revoking twice keeps the first revocation time. */
export async function revokeToken(q: Queryable, id: string): Promise<TokenRow | undefined> {
  const { rows } = await q.query<TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  return rows[0];
}

/** At most one write a minute per token, so authentication does not turn every read into a write. */
export async function touchToken(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`, [id]);
}

export async function countActiveAdmins(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM tokens WHERE role = 'admin' AND revoked_at IS NULL`);
  return rows[0]?.n ?? 0;
}
