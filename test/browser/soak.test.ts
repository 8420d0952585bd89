// The soak's short variant (`npm run soak` runs the long one): 3 agents exploring the sample app at
// random on real Chromium through a real gateway and worker, with 30 event-stream subscribers, for
// 45 s, relaunching every app once on the way and then starting a new round of sessions. Every answer must be a success or a typed refusal,
// every session must still be ready at the end, the gateway must give back the descriptors its
// subscribers held, and what the worker's stores and Chromium hold must be reported.
import { expect, it } from 'vitest';
import { runSoak, soakMarkdown } from '../soak/soak.js';

it('three agents and thirty subscribers for 45 s, a relaunch and a new round of sessions: no error, sessions alive, descriptors given back', async () => {
  const r = await runSoak({ durationMs: 45_000, sessions: 3, subscribers: 30, sampleMs: 2000, relaunchEveryMs: 15_000, roundEveryMs: 30_000 });
  console.log(soakMarkdown(r));
  expect(r.errors).toEqual([]);
  expect(r.actions).toBeGreaterThan(15);
  expect(r.events).toBeGreaterThan(0);
  expect(r.gatewayFds.after).toBeLessThanOrEqual(r.gatewayFds.before + 10);
  // What the worker held is reported kind by kind (from its heartbeats, through /metrics).
  const held = Object.fromEntries(r.held.map((h) => [h.kind, h]));
  expect(held.frames?.end).toBeGreaterThan(0);
  expect(held.screens?.end).toBeGreaterThan(0);
  // The agents take no marks of their own; the actions' marks are not kept (they held up to 500
  // analysed frames per device, which no one could ask for).
  expect(held.marks?.max).toBe(0);
  // The host's strain comes the same way; what it counted of slow reads is at most what it logged
  // (the last heartbeat may predate the last ones).
  expect(Object.keys(r.strain).sort()).toEqual(['captures_given_up', 'reads_cut_short', 'reads_overdue', 'slow_reads']);
  expect(r.strain.slow_reads).toBeLessThanOrEqual(r.slowReads.count);
  // The same for reads short of time, whose causes the report takes from the log.
  const { treeUsedTheTime, captureLate, recognitionStopped, probingStopped, overdue } = r.shortReads;
  expect(r.strain.reads_cut_short).toBeLessThanOrEqual(treeUsedTheTime + captureLate + recognitionStopped + probingStopped);
  expect(r.strain.reads_overdue).toBeLessThanOrEqual(overdue);
  // Memory per process is reported over time, not only at the ends.
  expect(r.timeline.length).toBeGreaterThan(0);
  expect(r.timeline[0]!.workerMB).toBeGreaterThan(0);
  // Chromium's GPU process and renderers are given apart, since either can grow alone.
  expect(Object.keys(r.lateGrowthMB)).toEqual([
    'gateway',
    'worker',
    'chromium',
    'chromium gpu-process',
    'chromium renderers',
    'worker JS heap',
    'worker native bound to JS',
  ]);
  for (const v of Object.values(r.lateGrowthMB)) expect(Number.isFinite(v)).toBe(true);
  // Relaunch cycles: the fresh pages, then every agent relaunching its app (at 15 s; at 30 s the
  // round takes the relaunch's place), each measured after every page collected its garbage.
  const rows = r.relaunches!;
  expect(rows.map((row) => row.cycle)).toEqual([0, 1]);
  for (const row of rows) {
    expect(row.error).toBeUndefined();
    expect(row.agents).toBe(3);
    expect(row.pages).toBe(3);
    expect(row.renderersMB).toBeGreaterThan(0);
    expect(row.domNodes).toBeGreaterThan(0);
    // A page keeps no document of the app it relaunched away from; its V8 heap is measured.
    expect(row.documents).toBeGreaterThanOrEqual(row.pages);
    expect(row.v8UsedMB).toBeGreaterThan(0);
    expect(row.v8TotalMB).toBeGreaterThanOrEqual(row.v8UsedMB);
  }
  // Rounds of sessions: before the first, then at 30 s every agent released its session, every
  // device was reset and measured with no session on it, and a new round started, which the agents
  // then drove (no session ended under one, no error above) until the end.
  const rounds = r.rounds!;
  expect(rounds.map((row) => [row.round, row.released])).toEqual([
    [0, 0],
    [1, 3],
  ]);
  for (const row of rounds) {
    expect(row.error).toBeUndefined();
    expect(row.pages).toBe(3);
    expect(row.renderersMB).toBeGreaterThan(0);
    expect(row.gpuMB + row.browserMB).toBeGreaterThan(0);
    expect(row.readyS).toBeGreaterThan(0);
  }
  expect(rounds[1]!.inSessionRenderersMB).toBeGreaterThan(0);
  expect(rounds[1]!.resetS).toBeGreaterThan(0);
  expect(r.routes.releaseSession?.n).toBe(3);
  // Chromium is measured once more after the sessions ended and their devices were reset.
  expect(r.chromiumByKind?.released?.renderer).toBeGreaterThan(0);
}, 180_000);
