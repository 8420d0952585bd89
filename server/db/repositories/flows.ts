// Recordings in progress and saved flows, per team and app, versioned.
import type { Schemas } from '../../../openapi/contract.js';
import type { Queryable } from '../database.js';
import { storableCopy } from '../unstorable.js';

export interface RecordingRow {
  session_id: string;
  team: string;
  name: string;
  platform: string;
  created_by: string;
  started_at: Date;
  steps: number;
  app: string | null;
}

export interface RecordedStepRow {
  seq: number;
  app: string | null;
  model: string;
  step: Schemas['Step'];
  verified: boolean;
}

export interface FlowRow {
  team: string;
  app: string;
  name: string;
  version: number;
  platform: string;
  steps: Schemas['Step'][];
  step_count: number;
  verified_steps: number;
  plan_digest: string;
  recorded_on: string;
  created_by: string;
  created_at: Date;
}

/** Starts a recording; false when the session is recording already. */
export async function startRecording(
  q: Queryable,
  r: { sessionId: string; team: string; name: string; platform: string; createdBy: string },
): Promise<boolean> {
  const { rowCount } = await q.query(
    `INSERT INTO recordings (session_id, team, name, platform, created_by) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id) DO NOTHING`,
    [r.sessionId, r.team, r.name, r.platform, r.createdBy],
  );
  return rowCount === 1;
}

export async function getRecording(q: Queryable, sessionId: string): Promise<RecordingRow | undefined> {
  const { rows } = await q.query<RecordingRow>(
    `SELECT r.*, (SELECT count(*)::int FROM recording_steps s WHERE s.session_id = r.session_id) AS steps,
            (SELECT s.app FROM recording_steps s WHERE s.session_id = r.session_id AND s.app IS NOT NULL ORDER BY s.seq LIMIT 1) AS app
       FROM recordings r WHERE r.session_id = $1`,
    [sessionId],
  );
  return rows[0];
}

/** Appends steps in order; the sequence continues from the last one kept. */
export async function appendRecordedSteps(
  q: Queryable,
  sessionId: string,
  steps: { app: string | null; model: string; step: Schemas['Step']; verified: boolean }[],
): Promise<void> {
  for (const s of steps) {
    await q.query(
      `INSERT INTO recording_steps (session_id, seq, app, model, step, verified)
       SELECT $1, COALESCE(MAX(seq), -1) + 1, $2, $3, $4, $5 FROM recording_steps WHERE session_id = $1`,
      // Labels and screen names come from the device's screen: a page may hold NUL in an element's
      // name, and the step must be kept whatever the page held (the action has already run).
      [sessionId, s.app, s.model, JSON.stringify(storableCopy(s.step)), s.verified],
    );
  }
}

export async function recordedSteps(q: Queryable, sessionId: string): Promise<RecordedStepRow[]> {
  const { rows } = await q.query<RecordedStepRow>(`SELECT seq, app, model, step, verified FROM recording_steps WHERE session_id = $1 ORDER BY seq`, [
    sessionId,
  ]);
  return rows;
}

export async function deleteRecording(q: Queryable, sessionId: string): Promise<boolean> {
  const { rowCount } = await q.query(`DELETE FROM recordings WHERE session_id = $1`, [sessionId]);
  return rowCount === 1;
}

export async function insertFlow(q: Queryable, f: Omit<FlowRow, 'version' | 'created_at'>): Promise<FlowRow> {
  const { rows } = await q.query<FlowRow>(
    `INSERT INTO flows (team, app, name, version, platform, steps, step_count, verified_steps, plan_digest, recorded_on, created_by)
     SELECT $1, $2, $3, COALESCE(MAX(version), 0) + 1, $4, $5, $6, $7, $8, $9, $10 FROM flows WHERE team = $1 AND app = $2 AND name = $3
     RETURNING *`,
    [f.team, f.app, f.name, f.platform, JSON.stringify(f.steps), f.step_count, f.verified_steps, f.plan_digest, f.recorded_on, f.created_by],
  );
  return rows[0]!;
}

/** The newest version of each flow (of every team when team is null). */
export async function listFlows(q: Queryable, team: string | null, app: string | undefined): Promise<FlowRow[]> {
  const { rows } = await q.query<FlowRow>(
    `SELECT DISTINCT ON (team, app, name) * FROM flows
      WHERE ($1::text IS NULL OR team = $1) AND ($2::text IS NULL OR app = $2)
      ORDER BY team, app, name, version DESC`,
    [team, app ?? null],
  );
  return rows;
}

/** The apps that hold a flow of this name. */
export async function appsWithFlow(q: Queryable, team: string, name: string): Promise<string[]> {
  const { rows } = await q.query<{ app: string }>(`SELECT DISTINCT app FROM flows WHERE team = $1 AND name = $2 ORDER BY app`, [team, name]);
  return rows.map((r) => r.app);
}

export async function getFlow(q: Queryable, team: string, app: string, name: string, version: number | undefined): Promise<FlowRow | undefined> {
  const { rows } = await q.query<FlowRow>(
    `SELECT * FROM flows WHERE team = $1 AND app = $2 AND name = $3 AND ($4::int IS NULL OR version = $4) ORDER BY version DESC LIMIT 1`,
    [team, app, name, version ?? null],
  );
  return rows[0];
}

export async function deleteFlow(q: Queryable, team: string, app: string, name: string): Promise<number> {
  const { rowCount } = await q.query(`DELETE FROM flows WHERE team = $1 AND app = $2 AND name = $3`, [team, app, name]);
  return rowCount;
}
