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
//   6. Of those, one on a host that has shown no strain lately, then on the host with the fewest
//      devices in use (counting this run's own placements): sessions spread over the farm's hosts,
//      and a starved host gets new sessions only when no other host has a device that fits.

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
  /** Its host: strained lately (strain.ts), and how many of its devices serve sessions now. */
  host?: { id: string; strained: boolean; busy: number };
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

export function plan(
  requests: readonly QueuedRequest[],
  devices: readonly FreeDevice[],
  teams: ReadonlyMap<string, TeamUsage>,
  nowMs: number,
  agingMs: number,
): Assignment[] {
  const free = [...devices];
  const busy = new Map<string, number>();
  for (const d of devices) if (d.host) busy.set(d.host.id, d.host.busy);
  const better = betterDevice(busy);
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
    const pick = nextPick(byClass, free, usageOf, better);
    if (!pick) return assignments;
    const { req, deviceIndex, list } = pick;
    const device = free[deviceIndex]!;
    assignments.push({ sessionId: req.id, deviceId: device.id });
    if (device.host) busy.set(device.host.id, (busy.get(device.host.id) ?? 0) + 1);
    free.splice(deviceIndex, 1);
    list.splice(list.indexOf(req), 1);
    const u = usageOf(req.team);
    u.active++;
    u.recent++;
  }
}

/** Rules 5 and 6: whether device a is to be used before device b. */
function betterDevice(busy: ReadonlyMap<string, number>): (a: FreeDevice, b: FreeDevice) => boolean {
  const load = (d: FreeDevice) => (d.host ? (busy.get(d.host.id) ?? 0) : 0);
  return (a, b) => {
    if (a.labels.length !== b.labels.length) return a.labels.length < b.labels.length;
    const strainA = a.host?.strained ?? false;
    const strainB = b.host?.strained ?? false;
    if (strainA !== strainB) return !strainA;
    if (load(a) !== load(b)) return load(a) < load(b);
    return a.id < b.id;
  };
}

function nextPick(
  byClass: Map<string, QueuedRequest[]>[],
  free: FreeDevice[],
  usageOf: (team: string) => TeamUsage,
  better: (a: FreeDevice, b: FreeDevice) => boolean,
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
        let deviceIndex = -1;
        free.forEach((d, i) => {
          if (matches(req, d) && (deviceIndex < 0 || better(d, free[deviceIndex]!))) deviceIndex = i;
        });
        if (deviceIndex >= 0) return { req, deviceIndex, list };
      }
    }
  }
  return undefined;
}
