// Who gets which free device: a pure function, so the policy can be read and tested apart from
// the locking around it.
//
//   1. Priority class first (interactive < ci < background), but a request climbs one class per
//      `agingMs` of waiting, so nothing starves.
//   2. Within a class, the team with the smallest weighted share of recent placements goes next
//      (recent / weight, over the fairness window): contended devices split by weight.
//   3. Within a team, its oldest request that some free device matches. A request no free device
//      matches never blocks one behind it: one device type never holds up another.
//   4. A team at its concurrency quota waits; its requests keep their places.
//   5. Of the devices a request matches, the least specialised one (fewest labels) is used, keeping
//      special devices for requests that need them.

export type PriorityName = 'interactive' | 'ci' | 'background';
const RANK: Record<PriorityName, number> = { interactive: 0, ci: 1, background: 2 };
export const CLASS_NAMES: readonly PriorityName[] = ['interactive', 'ci', 'background'];

export interface Requirements {
  model?: string;
  os?: string;
  labels?: string[];
}

export interface QueuedRequest {
  id: string;
  team: string;
  priority: PriorityName;
  createdAtMs: number;
  platform: string;
  requirements: Requirements;
}

export interface FreeDevice {
  id: string;
  platform: string;
  model: string;
  os: string;
  labels: string[];
}

export interface TeamUsage {
  weight: number;
  /** null: no quota */
  quota: number | null;
  active: number;
  recent: number;
}

export interface Assignment {
  sessionId: string;
  deviceId: string;
}

export function effectiveClass(priority: PriorityName, createdAtMs: number, nowMs: number, agingMs: number): number {
  return Math.max(0, RANK[priority] - Math.floor(Math.max(0, nowMs - createdAtMs) / agingMs));
}

export function matches(req: Pick<QueuedRequest, 'platform' | 'requirements'>, dev: FreeDevice): boolean {
  if (req.platform !== dev.platform) return false;
  const r = req.requirements;
  if (r.model !== undefined && r.model !== dev.model) return false;
  if (r.os !== undefined && r.os !== dev.os) return false;
  return (r.labels ?? []).every((l) => dev.labels.includes(l));
}

export function plan(requests: readonly QueuedRequest[], devices: readonly FreeDevice[], teams: ReadonlyMap<string, TeamUsage>, nowMs: number, agingMs: number): Assignment[] {
  const free = [...devices].sort((a, b) => a.labels.length - b.labels.length || (a.id < b.id ? -1 : 1));
  const usage = new Map<string, TeamUsage>();
  const usageOf = (team: string): TeamUsage => {
    let u = usage.get(team);
    if (!u) usage.set(team, (u = { ...(teams.get(team) ?? { weight: 1, quota: null, active: 0, recent: 0 }) }));
    return u;
  };
  // Per class, per team: its requests oldest first.
  const byClass: Map<string, QueuedRequest[]>[] = [new Map(), new Map(), new Map()];
  const ordered = [...requests].sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1));
  for (const req of ordered) {
    const lists = byClass[effectiveClass(req.priority, req.createdAtMs, nowMs, agingMs)]!;
    const list = lists.get(req.team) ?? [];
    list.push(req);
    lists.set(req.team, list);
  }

  const assignments: Assignment[] = [];
  for (;;) {
    const pick = nextPick(byClass, free, usageOf);
    if (!pick) return assignments;
    const { req, deviceIndex, list } = pick;
    assignments.push({ sessionId: req.id, deviceId: free[deviceIndex]!.id });
    free.splice(deviceIndex, 1);
    list.splice(list.indexOf(req), 1);
    const u = usageOf(req.team);
    u.active++;
    u.recent++;
  }
}

function nextPick(
  byClass: Map<string, QueuedRequest[]>[],
  free: FreeDevice[],
  usageOf: (team: string) => TeamUsage,
): { req: QueuedRequest; deviceIndex: number; list: QueuedRequest[] } | undefined {
  if (free.length === 0) return undefined;
  for (const lists of byClass) {
    const teams = [...lists.keys()]
      .filter((t) => lists.get(t)!.length > 0)
      .map((t) => ({ t, u: usageOf(t), head: lists.get(t)![0]!.createdAtMs }))
      .filter(({ u }) => u.quota === null || u.active < u.quota)
      .sort((a, b) => a.u.recent / a.u.weight - b.u.recent / b.u.weight || a.head - b.head || (a.t < b.t ? -1 : 1));
    for (const { t } of teams) {
      const list = lists.get(t)!;
      for (const req of list) {
        const deviceIndex = free.findIndex((d) => matches(req, d));
        if (deviceIndex >= 0) return { req, deviceIndex, list };
      }
    }
  }
  return undefined;
}
