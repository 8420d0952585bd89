// Placement: how fast a farm hands out devices, measured on a gateway with a real Postgres and a
// worker of fake devices (which prepare and reset in 0 ms, so the backend's own time is excluded).
//  - placements per second: 1,000 requests queued, then 200 devices become healthy in one report;
//    timed from all 200 available to all 200 placed (phases timed apart);
//  - free → ready: with requests waiting, a session is released; timed from its device being free
//    again (after the reset) to the next waiting session being ready, split into free → placed and
//    placed → ready (the prepare round trip).
import { performance } from 'node:perf_hooks';
import type { Gateway } from '../../../server/gateway.js';
import { startFarm, type Farm } from '../../helpers/farm.js';
import { sleep } from '../../helpers/wait.js';
import { summarise, type Figure, type Suite } from '../harness.js';

const RUNS = 5;

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1);
  }
  return performance.now();
}

const count = async (farm: Farm, sql: string): Promise<number> => (await farm.db.query<{ n: number }>(sql))[0]!.n;

async function placementRun(): Promise<{ perSecond: number; availableMs: number; placeMs: number }> {
  const farm = await startFarm({ SIMFLEET_PLACEMENT_INTERVAL_MS: '1000', SIMFLEET_DB_POOL_SIZE: '20' });
  try {
    const { provider } = await farm.addWorker(200, { operationMs: 0 });
    for (let i = 1; i <= 200; i++) provider.setBroken(`fake-${i}`, 'held back by the benchmark');
    await until('all broken', async () => (await count(farm, `SELECT count(*)::int AS n FROM devices WHERE state = 'broken'`)) === 200);
    const agent = await farm.token('agent', 'bench');
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => agent.call('createSession', { body: { platform: 'web', waitSeconds: 600 } })));
    }
    await until('1000 queued', async () => (await count(farm, `SELECT count(*)::int AS n FROM sessions WHERE state = 'queued'`)) === 1000);
    const t0 = performance.now();
    for (let i = 1; i <= 200; i++) provider.setBroken(`fake-${i}`, undefined); // coalesces into few reports
    const available = await until('devices healthy', async () => (await count(farm, `SELECT count(*)::int AS n FROM devices WHERE state <> 'broken'`)) === 200);
    const placed = await until('200 placed', async () => (await count(farm, `SELECT count(*)::int AS n FROM sessions WHERE placed_at IS NOT NULL`)) >= 200);
    return { perSecond: 200 / ((placed - available) / 1000), availableMs: available - t0, placeMs: placed - available };
  } finally {
    await farm.stop();
  }
}

/** Times each step from the NOTIFYs the gateway sends when each transition commits. */
async function freeToReadyRun(iterations: number): Promise<{ freeToPlaced: number[]; placedToReady: number[]; freeToReady: number[] }> {
  const farm = await startFarm({ SIMFLEET_PLACEMENT_INTERVAL_MS: '1000' });
  const out = { freeToPlaced: [] as number[], placedToReady: [] as number[], freeToReady: [] as number[] };
  try {
    await farm.addWorker(10, { operationMs: 0 });
    const agent = await farm.token('agent', 'bench');
    const held: string[] = [];
    for (let i = 0; i < 10; i++) {
      const s = (await agent.call('createSession', { body: { platform: 'web' } })).body;
      held.push(s.id);
    }
    const waiting: string[] = [];
    for (let i = 0; i < iterations; i++) waiting.push((await agent.call('createSession', { body: { platform: 'web', waitSeconds: 600 } })).body.id);
    const gateway: Gateway = farm.gateway;
    const marks: { at: number; channel: string; payload: string }[] = [];
    const off1 = await gateway.db.listen('sf_placement', (p) => marks.push({ at: performance.now(), channel: 'placement', payload: p }));
    const off2 = await gateway.db.listen('sf_session', (p) => marks.push({ at: performance.now(), channel: 'session', payload: p }));
    for (let i = 0; i < iterations; i++) {
      const next = waiting[i]!;
      marks.length = 0;
      await agent.call('releaseSession', { params: { sessionId: held.shift()! } });
      await until(
        'next ready',
        async () => (await farm.db.query<{ state: string }>(`SELECT state FROM sessions WHERE id = $1`, [next]))[0]!.state === 'ready',
        10_000,
      );
      await sleep(20); // let the last NOTIFY land
      const nextMarks = marks.filter((m) => m.channel === 'session' && m.payload.includes(next));
      const placedAt = nextMarks[0]!.at;
      const readyAt = nextMarks[1]!.at;
      // The device is free when the reset's commit NOTIFYs placement; the last one before the placement.
      const freeAt = Math.max(...marks.filter((m) => m.channel === 'placement' && m.at <= placedAt).map((m) => m.at));
      out.freeToPlaced.push(placedAt - freeAt);
      out.placedToReady.push(readyAt - placedAt);
      out.freeToReady.push(readyAt - freeAt);
      held.push(next);
    }
    await off1();
    await off2();
    return out;
  } finally {
    await farm.stop();
  }
}

export const placementSuite: Suite = {
  name: 'placement',
  describe: 'placements per second (1,000 queued, 200 devices) and device free → next session ready',
  async run(): Promise<Figure[]> {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await placementRun());
    const latency = await freeToReadyRun(30);
    return [
      summarise(
        'placement',
        'placements per second, 1,000 queued × 200 devices freed at once',
        'placements/s',
        runs.map((r) => r.perSecond),
      ),
      summarise(
        'placement',
        'phase: device report → 200 devices available',
        'ms',
        runs.map((r) => r.availableMs),
      ),
      summarise(
        'placement',
        'phase: 200 available → 200 placed',
        'ms',
        runs.map((r) => r.placeMs),
      ),
      summarise('placement', 'device free → next session ready (0 ms backend)', 'ms', latency.freeToReady, {
        note: 'free = the reset commit; ready = the ready commit',
      }),
      summarise('placement', 'phase: free → placed', 'ms', latency.freeToPlaced),
      summarise('placement', 'phase: placed → ready (prepare round trip)', 'ms', latency.placedToReady),
    ];
  },
};
