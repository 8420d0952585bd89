// Time for the database: session deadlines are judged by Postgres's now(), so a test moves a
// session's time on by moving its timestamps back, rather than waiting for the clock.
import type { TestDatabase } from './db.js';

/** Moves every timestamp of a session back by `ms`: to the database, `ms` of its life have passed. */
export async function ageSession(db: TestDatabase, sessionId: string, ms: number): Promise<void> {
  await db.query(
    `UPDATE sessions SET created_at = created_at - $2 * interval '1 millisecond',
       queue_deadline = queue_deadline - $2 * interval '1 millisecond',
       placed_at = placed_at - $2 * interval '1 millisecond',
       ready_at = ready_at - $2 * interval '1 millisecond',
       expires_at = expires_at - $2 * interval '1 millisecond',
       last_activity_at = last_activity_at - $2 * interval '1 millisecond'
     WHERE id = $1`,
    [sessionId, ms],
  );
}
