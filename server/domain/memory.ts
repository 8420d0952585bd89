// The farm's memory as clients see it: a team's apps, their screens and graph, a route between two
// screens over verified edges, escalations, and forgetting an app. A team sees its own memory; an
// admin sees every team's. Apps are named in URLs by an opaque id (their keys hold URLs).
import type { Schemas } from '../../openapi/contract.js';
import type { Database } from '../db/database.js';
import { forgetApp, insertEscalation, listApps, listEscalations, loadMemory, type AppRow } from '../db/repositories/memory.js';
import { ApiError } from '../errors.js';
import type { Principal } from './tokens.js';

type Key = Schemas['MemoryKey'];

export const appIdOf = (k: { team: string; platform: string; app: string }): string => Buffer.from(`${k.team}\n${k.platform}\n${k.app}`).toString('base64url');

function keyOf(appId: string): Key {
  const parts = Buffer.from(appId, 'base64url').toString('utf8').split('\n');
  if (parts.length !== 3 || !['web', 'android', 'ios'].includes(parts[1]!)) throw notFound(appId);
  return { team: parts[0]!, platform: parts[1] as Key['platform'], app: parts[2]! };
}

const notFound = (appId: string) =>
  new ApiError('NOT_FOUND', { message: `no app ${appId} in this team's memory`, hint: 'GET /v1/apps lists the apps remembered' });

export class MemoryService {
  constructor(
    private readonly db: Database,
    /** Told of every escalation this service records (for /metrics). */
    private readonly escalated: (reason: Schemas['EscalationReason']) => void = () => undefined,
  ) {}

  async apps(p: Principal): Promise<Schemas['AppSummary'][]> {
    return (await listApps(this.db, p.role === 'admin' ? null : p.team)).map(summary);
  }

  async screens(p: Principal, appId: string): Promise<{ app: Schemas['AppSummary']; screens: Schemas['MemoryScreen'][] }> {
    const { app, key } = await this.app(p, appId);
    return { app, screens: (await loadMemory(this.db, key, { vocabulary: true })).screens };
  }

  async graph(p: Principal, appId: string): Promise<{ nodes: { id: string; name: string | null }[]; edges: Schemas['MemoryEdge'][] }> {
    const { key } = await this.app(p, appId);
    const m = await loadMemory(this.db, key);
    return { nodes: m.screens.map((s) => ({ id: s.id, name: s.name })), edges: m.edges };
  }

  /**
   * Fewest steps from one screen to another over verified edges (breadth first). A goal the memory
   * does not cover is refused and escalated as uncovered-goal, with what the memory does know.
   */
  async path(p: Principal, appId: string, from: string, to: string): Promise<Schemas['MemoryEdge'][]> {
    const t0 = performance.now();
    const { key } = await this.app(p, appId);
    const memory = await loadMemory(this.db, key);
    const edges = memory.edges.filter((e) => e.verified > 0 && e.from !== e.to);
    const came = new Map<string, Schemas['MemoryEdge'] | null>([[from, null]]);
    const queue = [from];
    while (queue.length && !came.has(to)) {
      const at = queue.shift()!;
      for (const e of edges.filter((x) => x.from === at).sort((a, b) => b.verified - a.verified)) {
        if (came.has(e.to)) continue;
        came.set(e.to, e);
        queue.push(e.to);
      }
    }
    if (!came.has(to)) {
      const known = new Set(memory.screens.map((s) => s.id));
      const evidence = { from, to, fromKnown: known.has(from), toKnown: known.has(to), reachable: came.size - 1, verifiedEdges: edges.length };
      const id = await insertEscalation(this.db, key, null, {
        screen: from,
        reason: 'uncovered-goal',
        evidence,
        costMs: Math.round(performance.now() - t0),
        at: new Date().toISOString(),
      });
      this.escalated('uncovered-goal');
      const why = !evidence.toKnown
        ? `screen ${to} is not in this app's memory`
        : `${to} is known, but no verified edges lead there from ${from} (${evidence.reachable} screens reachable)`;
      throw new ApiError('NO_MATCH', {
        message: `no route over verified edges from ${from} to ${to}: ${why}`,
        hint: 'GET /v1/apps/{appId}/graph shows the edges known; walk the way once to verify it',
        details: { escalation: { id, reason: 'uncovered-goal' }, ...evidence },
      });
    }
    const steps: Schemas['MemoryEdge'][] = [];
    for (let e = came.get(to); e; e = came.get(e.from)) steps.unshift(e);
    return steps;
  }

  async escalations(p: Principal, f: { reason?: string; appId?: string; since?: string; limit?: string }) {
    const key = f.appId ? keyOf(f.appId) : undefined;
    if (key && p.role !== 'admin' && key.team !== p.team) throw notFound(f.appId!);
    const rows = await listEscalations(this.db, {
      ...(p.role === 'admin' ? {} : { team: p.team }),
      ...(key ? { team: key.team, app: key.app } : {}),
      ...(f.reason ? { reason: f.reason } : {}),
      ...(f.since ? { since: f.since } : {}),
      limit: Math.min(1000, Number(f.limit ?? 100)),
    });
    return rows.map((r) => ({
      id: String(r.id),
      team: r.team,
      appId: appIdOf(r),
      hostId: r.host_id,
      screen: r.screen,
      reason: r.reason as Schemas['EscalationReason'],
      evidence: r.evidence,
      costMs: r.cost_ms,
      at: new Date(r.at).toISOString(),
    }));
  }

  async forget(appId: string): Promise<void> {
    if (!(await forgetApp(this.db, keyOf(appId)))) throw notFound(appId);
  }

  private async app(p: Principal, appId: string): Promise<{ app: Schemas['AppSummary']; key: Key }> {
    const key = keyOf(appId);
    if (p.role !== 'admin' && key.team !== p.team) throw notFound(appId);
    const row = (await listApps(this.db, key.team)).find((a) => a.platform === key.platform && a.app === key.app);
    if (!row) throw notFound(appId);
    return { app: summary(row), key };
  }
}

function summary(r: AppRow): Schemas['AppSummary'] {
  // Workers key memory as app@band.
  const at = r.app.lastIndexOf('@');
  const [app, versionBand] = at > 0 ? [r.app.slice(0, at), r.app.slice(at + 1)] : [r.app, 'any'];
  return { id: appIdOf(r), team: r.team, platform: r.platform as Schemas['AppSummary']['platform'], app, versionBand, screens: r.screens, edges: r.edges };
}
