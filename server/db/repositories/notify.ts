// NOTIFY between gateways (delivered at commit when sent inside a transaction).
import type { Queryable } from '../database.js';

export async function notify(q: Queryable, channel: string, payload: string): Promise<void> {
  await q.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
