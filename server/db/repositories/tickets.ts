// Tickets for WebSocket upgrades: issued against a token, redeemed once before they expire.
import type { Queryable } from '../database.js';
import type { TokenRow } from './tokens.js';

export async function insertTicket(q: Queryable, hash: string, tokenId: string, ttlMs: number): Promise<Date> {
  const { rows } = await q.query<{ expires_at: Date }>(
    `INSERT INTO tickets (hash, token_id, expires_at) VALUES ($1, $2, now() + ($3 || ' milliseconds')::interval) RETURNING expires_at`,
    [hash, tokenId, String(ttlMs)],
  );
  return rows[0]!.expires_at;
}

/** Marks the ticket used and answers its token, in one statement: two upgrades cannot both win. */
export async function redeemTicket(q: Queryable, hash: string): Promise<TokenRow | undefined> {
  const { rows } = await q.query<TokenRow>(
    `WITH used AS (UPDATE tickets SET used_at = now() WHERE hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING token_id)
     SELECT t.* FROM tokens t JOIN used ON used.token_id = t.id`,
    [hash],
  );
  return rows[0];
}

export async function pruneTickets(q: Queryable): Promise<void> {
  await q.query(`DELETE FROM tickets WHERE expires_at < now() - interval '1 hour'`);
}
