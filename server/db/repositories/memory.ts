// The farm's memory of each team's apps: screens, the transition graph, escalations. Workers write
// behind through their gateway (they hold no database credentials); a write carries an id and
// applies once however often it is retried. Edge counts arrive as increments, so two hosts learning
// the same edge add up rather than overwrite each other.
import type { Schemas } from '../../../openapi/contract.js';
import type { Database, Queryable } from '../database.js';

type Key = Schemas['MemoryKey'];

/** The worker's time for a reading, never later than the database's clock (a host's clock may run ahead). */
const CONFIRMED_AT = (param: string) => `LEAST(COALESCE(${param}::timestamptz, now()), now())`;
/** A sent vocabulary replaces the stored one when at least as recent, or when none is stored yet. */
const NEWER_VOCABULARY = (param: string, at: string) =>
  `CASE WHEN ${param}::jsonb IS NOT NULL AND (${at} >= memory_screens.confirmed_at OR jsonb_array_length(memory_screens.vocabulary) = 0) THEN ${param}::jsonb ELSE memory_screens.vocabulary END`;

/** Applies a write once: 'repeated' for a retry of one applied before, 'forgotten' when from before a forget. */
export async function applyMemoryWrite(db: Database, hostId: string | null, w: Schemas['WorkerMemoryWrite']): Promise<'applied' | 'repeated' | 'forgotten'> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(`INSERT INTO memory_writes (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [`${hostId ?? '-'}:${w.id}`]);
    if (!rowCount) return 'repeated';
    const k = w.key;
    const { rows: gen } = await tx.query<{ generation: number }>(
      `INSERT INTO memory_apps (team, platform, app) VALUES ($1, $2, $3) ON CONFLICT (team, platform, app) DO UPDATE SET generation = memory_apps.generation RETURNING generation`,
      [k.team, k.platform, k.app],
    );
    if ((w.generation ?? 0) < gen[0]!.generation) return 'forgotten';
    for (const s of w.screens) {
      await tx.query(
        `INSERT INTO memory_screens (team, platform, app, node_id, name, fingerprints, readings, vocabulary, confirmed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8::jsonb, '[]'), ${CONFIRMED_AT('$9')})
         ON CONFLICT (team, platform, app, node_id) DO UPDATE
           SET name = COALESCE(memory_screens.name, EXCLUDED.name), fingerprints = EXCLUDED.fingerprints,
               readings = GREATEST(memory_screens.readings, EXCLUDED.readings),
               vocabulary = ${NEWER_VOCABULARY('$8', 'EXCLUDED.confirmed_at')},
               confirmed_at = GREATEST(memory_screens.confirmed_at, EXCLUDED.confirmed_at)`,
        [
          k.team,
          k.platform,
          k.app,
          s.id,
          s.name,
          JSON.stringify(s.fingerprints),
          s.readings,
          s.vocabulary ? JSON.stringify(s.vocabulary) : null,
          s.confirmedAt ?? null,
        ],
      );
    }
    // A screen recognised again: only its time and vocabulary move; a screen not held is skipped.
    for (const c of w.confirmations ?? []) {
      await tx.query(
        `UPDATE memory_screens
            SET vocabulary = ${NEWER_VOCABULARY('$5', CONFIRMED_AT('$6'))},
                confirmed_at = GREATEST(memory_screens.confirmed_at, ${CONFIRMED_AT('$6')})
          WHERE team = $1 AND platform = $2 AND app = $3 AND node_id = $4`,
        [k.team, k.platform, k.app, c.id, c.vocabulary ? JSON.stringify(c.vocabulary) : null, c.confirmedAt],
      );
    }
    for (const e of w.edges) {
      await tx.query(
        `INSERT INTO memory_edges (team, platform, app, from_node, action, to_node, count, verified, durations, kinds, last_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())
         ON CONFLICT (team, platform, app, from_node, action, to_node) DO UPDATE
           SET count = memory_edges.count + EXCLUDED.count, verified = memory_edges.verified + EXCLUDED.verified,
               durations = (SELECT COALESCE(jsonb_agg(x), '[]') FROM (SELECT x FROM jsonb_array_elements(memory_edges.durations || EXCLUDED.durations) WITH ORDINALITY AS t(x, n) ORDER BY n DESC LIMIT 16) d),
               kinds = (SELECT COALESCE(jsonb_object_agg(k, v), '{}') FROM (SELECT k, SUM(v::int) AS v FROM (SELECT * FROM jsonb_each_text(memory_edges.kinds) UNION ALL SELECT * FROM jsonb_each_text(EXCLUDED.kinds)) u(k, v) GROUP BY k) s),
               last_at = now()`,
        [k.team, k.platform, k.app, e.from, e.action, e.to, e.count, e.verified, JSON.stringify(e.durations), JSON.stringify(e.kinds)],
      );
    }
    for (const x of w.escalations) await insertEscalation(tx, k, hostId, x);
    return 'applied';
  });
}

/** Stores one escalation; its id. `hostId` null: raised by a gateway, not a worker. */
export async function insertEscalation(
  q: Queryable,
  k: Key,
  hostId: string | null,
  x: { screen: string; reason: string; evidence: unknown; costMs: number; at: string },
): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO escalations (team, platform, app, host_id, screen, reason, evidence, cost_ms, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [k.team, k.platform, k.app, hostId, x.screen, x.reason, JSON.stringify(x.evidence), x.costMs, x.at],
  );
  return String(rows[0]!.id);
}

/**
 * What the farm remembers of an app. The vocabulary is left out unless asked for: a worker's load
 * does not use it (it answers from the faces it read itself), and 500 screens' worth would not fit
 * in one message on the worker link.
 */
export async function loadMemory(
  q: Queryable,
  k: Key,
  opts: { vocabulary?: boolean } = {},
): Promise<{ screens: Schemas['MemoryScreen'][]; edges: Schemas['MemoryEdge'][]; generation: number }> {
  const { rows: gen } = await q.query<{ generation: number }>(`SELECT generation FROM memory_apps WHERE team = $1 AND platform = $2 AND app = $3`, [
    k.team,
    k.platform,
    k.app,
  ]);
  const screens = await q.query<{
    node_id: string;
    name: string | null;
    fingerprints: Schemas['MemoryScreen']['fingerprints'];
    readings: number;
    vocabulary: Schemas['MemoryWord'][] | null;
    confirmed_at: Date;
  }>(
    `SELECT node_id, name, fingerprints, readings, ${opts.vocabulary ? 'vocabulary' : 'NULL AS vocabulary'}, confirmed_at FROM memory_screens WHERE team = $1 AND platform = $2 AND app = $3 ORDER BY confirmed_at DESC LIMIT 500`,
    [k.team, k.platform, k.app],
  );
  const edges = await q.query<{
    from_node: string;
    action: string;
    to_node: string;
    count: number;
    verified: number;
    durations: number[];
    kinds: Record<string, number>;
  }>(
    `SELECT from_node, action, to_node, count, verified, durations, kinds FROM memory_edges WHERE team = $1 AND platform = $2 AND app = $3 ORDER BY count DESC LIMIT 2000`,
    [k.team, k.platform, k.app],
  );
  return {
    screens: screens.rows.map((r) => ({
      id: r.node_id,
      name: r.name,
      fingerprints: r.fingerprints,
      readings: r.readings,
      ...(r.vocabulary ? { vocabulary: r.vocabulary } : {}),
      confirmedAt: new Date(r.confirmed_at).toISOString(),
    })),
    edges: edges.rows.map((r) => ({
      from: r.from_node,
      action: r.action,
      to: r.to_node,
      count: r.count,
      verified: r.verified,
      durations: r.durations,
      kinds: r.kinds,
    })),
    generation: gen[0]?.generation ?? 0,
  };
}

export interface EscalationRow {
  id: string;
  team: string;
  platform: string;
  app: string;
  host_id: string | null;
  screen: string;
  reason: string;
  evidence: Record<string, unknown>;
  cost_ms: number;
  at: Date;
}

export async function listEscalations(
  q: Queryable,
  f: { team?: string; reason?: string; app?: string; since?: string; limit: number },
): Promise<EscalationRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, v: unknown) => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.team) add('team = ?', f.team);
  if (f.reason) add('reason = ?', f.reason);
  if (f.app) add('app = ?', f.app);
  if (f.since) add('at >= ?', f.since);
  args.push(f.limit);
  const { rows } = await q.query<EscalationRow>(
    `SELECT * FROM escalations ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT $${args.length}`,
    args,
  );
  return rows;
}

export interface AppRow {
  team: string;
  platform: string;
  app: string;
  screens: number;
  edges: number;
}

export async function listApps(q: Queryable, team: string | null): Promise<AppRow[]> {
  const { rows } = await q.query<AppRow>(
    `SELECT s.team, s.platform, s.app, count(*)::int AS screens,
            (SELECT count(*)::int FROM memory_edges e WHERE e.team = s.team AND e.platform = s.platform AND e.app = s.app) AS edges
       FROM memory_screens s ${team === null ? '' : 'WHERE s.team = $1'}
      GROUP BY s.team, s.platform, s.app ORDER BY s.team, s.platform, s.app`,
    team === null ? [] : [team],
  );
  return rows;
}

export async function forgetApp(db: Database, k: Key): Promise<boolean> {
  return db.transaction(async (tx) => {
    const args = [k.team, k.platform, k.app];
    const { rowCount } = await tx.query(`DELETE FROM memory_screens WHERE team = $1 AND platform = $2 AND app = $3`, args);
    const edges = await tx.query(`DELETE FROM memory_edges WHERE team = $1 AND platform = $2 AND app = $3`, args);
    await tx.query(`DELETE FROM escalations WHERE team = $1 AND platform = $2 AND app = $3`, args);
    // Writes from workers that loaded it before now are dropped; they start afresh.
    await tx.query(
      `INSERT INTO memory_apps (team, platform, app, generation) VALUES ($1, $2, $3, 1) ON CONFLICT (team, platform, app) DO UPDATE SET generation = memory_apps.generation + 1`,
      args,
    );
    return (rowCount ?? 0) + (edges.rowCount ?? 0) > 0;
  });
}
