// The soak: a real gateway, a real worker with one web device per agent, agents doing random valid
// things on the sample app (read the screen, tap what it offers, go back, scroll) and a crowd of
// event-stream subscribers, for a while. What it watches is what a farm dies of slowly: memory that
// only grows, descriptors that leak, latency that drifts, and any answer that is not a typed one.
// `npm run soak` runs it for 30 minutes; test/browser/soak.test.ts runs a short one in `npm test`.
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api.js';
import { startCrowd } from '../helpers/crowd.js';
import { createTestDatabase } from '../helpers/db.js';
import { descendantsOf } from '../helpers/proc.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { collectGarbage, debuggableChromium } from './collect.js';
import { cycleTimes, RelaunchCycles } from './relaunch-cycles.js';
import { shortReads, shortReadsMarkdown, slowReads, slowReadsMarkdown, type ShortReads, type SlowReads } from './slow-reads.js';

export interface SoakOptions {
  durationMs: number;
  sessions: number;
  subscribers: number;
  sampleMs: number;
  /** Settings for the worker beyond the soak's own (SIMFLEET_FRAME_BUDGET_BYTES, say). */
  workerEnv?: Record<string, string>;
  /** Settings for the gateway (SIMFLEET_HOST_TIMEOUT_MS, so a worker paused for a heap snapshot is not called lost). */
  gatewayEnv?: Record<string, string>;
  progress?: (line: string) => void;
  /**
   * Every this often, every agent relaunches its app (a fresh page in the same session); once all
   * have, every page collects its garbage and Chromium is measured (relaunch-cycles.ts). What the
   * renderers still hold then is theirs, not the pages' state: flat from cycle to cycle or not.
   */
  relaunchEveryMs?: number;
  /**
   * At the end, every page collects its garbage and Chromium is measured again (collect.ts): what
   * the renderers grew by and give back then was garbage not yet collected, not a leak.
   */
  collectAtEnd?: boolean;
}

export interface ProcessTrend {
  name: string;
  rssMB: { start: number; end: number; max: number; slopeMBPerMin: number };
  /** Open file descriptors; absent for what is not one process. */
  fds?: { start: number; end: number; max: number };
}

export interface SoakReport {
  durationMs: number;
  sessions: number;
  subscribers: number;
  actions: number;
  verdicts: Record<string, number>;
  /** Verdicts by the screen each action ended on. */
  screens: Record<string, Record<string, number>>;
  /** Typed refusals an agent doing random things earns (a ref gone stale, a destructive button). */
  refusals: Record<string, number>;
  /** Anything else: a 5xx, an untyped body, a session that ended under an agent, a thrown error. */
  errors: string[];
  routes: Record<string, { n: number; p50Ms: number; p99Ms: number }>;
  events: number;
  processes: ProcessTrend[];
  /** Descriptors of the gateway before the subscribers came and after they left. */
  gatewayFds: { before: number; after: number };
  /** Screen reads the worker logged as slow, with where their time went. */
  slowReads: SlowReads;
  /** Reads that ran short of time, by cause: together, reads_cut_short and reads_overdue of the strain. */
  shortReads: ShortReads;
  /** The worker's strain counters at the end (simfleet_worker_strain_total), kind by kind: they should agree with slowReads. */
  strain: Record<string, number>;
  /** What the worker's stores held (simfleet_worker_held, from its heartbeats), kind by kind. */
  held: { kind: string; start: number; end: number; max: number; slopePerMin: number }[];
  /** Memory per process over time: the median of each slice of the run (about ten of them). */
  timeline: TimelineRow[];
  /**
   * Median of the last third minus the median of the middle third, per process (MB): a plateau
   * shows as about 0 however the first third (warm-up) went; a leak as the rate times a third.
   */
  lateGrowthMB: Record<string, number>;
  /** Chromium's PSS at the start, at the end, and a few seconds after every page collected its garbage. */
  collected?: { startMB: number; endMB: number; afterMB: number; pages: number } | { error: string };
  /** Chromium's PSS by kind of process (MB): at the start, at the end, and after collection when asked for. */
  /**
   * `released`: once the sessions were released and every device reset onto a fresh page (a new
   * renderer): what the renderers grew by during the sessions should be back.
   */
  chromiumByKind?: { start: Record<string, number>; end: Record<string, number>; after?: Record<string, number>; released?: Record<string, number> };
  /** One row per relaunch cycle (cycle 0: the fresh pages before the agents start), when asked for. */
  relaunches?: RelaunchRow[];
}

export interface RelaunchRow {
  cycle: number;
  atMin: number;
  /** Agents that relaunched and arrived in time (all of them, unless a session ended). */
  agents: number;
  /** Pages that collected their garbage, and what they hold after it (collect.ts). */
  pages: number;
  domNodes: number;
  documents: number;
  v8UsedMB: number;
  v8TotalMB: number;
  renderersMB: number;
  gpuMB: number;
  chromiumMB: number;
  error?: string;
}

export interface TimelineRow {
  fromMin: number;
  toMin: number;
  gatewayMB: number;
  workerMB: number;
  chromiumMB: number;
  /** Chromium's GPU process and its renderers (PSS): the two parts that grew in earlier soaks. */
  gpuMB: number;
  renderersMB: number;
  workerHeapMB: number;
  workerNativeMB: number;
  gatewayFds: number;
  workerFds: number;
}

/** What an agent may be told no for while it explores at random: each a typed, expected answer. */
const EXPECTED_REFUSALS = new Set(['STALE_REF', 'NO_MATCH', 'AMBIGUOUS', 'DESTRUCTIVE_REFUSED', 'ORIGIN_NOT_ALLOWED', 'NOT_SETTLED', 'APP_UNREACHABLE']);
const TAPPABLE = new Set(['button', 'link', 'tab', 'cell', 'switch', 'checkbox', 'radio', 'menuitem', 'option']);

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10 : 0;
};

/** Least-squares slope of y over x, per minute of x (ms). */
function slopePerMin(points: { t: number; v: number }[]): number {
  if (points.length < 3) return 0;
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mv = points.reduce((a, p) => a + p.v, 0) / n;
  const num = points.reduce((a, p) => a + (p.t - mt) * (p.v - mv), 0);
  const den = points.reduce((a, p) => a + (p.t - mt) ** 2, 0);
  return den === 0 ? 0 : Math.round((num / den) * 60_000 * 100) / 100;
}

const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
// Proportional set size: a page shared by n processes counts 1/n in each. Summing RSS over Chromium's
// forty-odd processes counted its shared libraries forty times (6.9 GB summed RSS against 1.8 GB
// PSS, read at the same moment of a soak of 20 devices).
const pssMB = (pid: number) => Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Chromium's processes under a worker (the browser and its renderers). */
function chromiumUnder(root: number): number[] {
  return descendantsOf(root)
    .filter((p) => /chrom/i.test(p.comm))
    .map((p) => p.pid);
}

/** Chromium's PSS under a worker, summed over its processes (one gone while read counts 0). */
function chromiumPssMB(workerPid: number): number {
  return Object.values(chromiumPssByKind(workerPid)).reduce((a, b) => a + b, 0);
}

/**
 * The same by kind of process (browser, renderer, gpu-process, utility, zygote...), from each one's
 * --type switch: which part of Chromium holds what grew.
 */
function chromiumPssByKind(workerPid: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const pid of chromiumUnder(workerPid)) {
    try {
      const kind = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
      byKind[kind] = (byKind[kind] ?? 0) + pssMB(pid);
    } catch {
      // gone while we looked
    }
  }
  return byKind;
}

const roundAll = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]));

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const say = opts.progress ?? (() => undefined);
  const db = await createTestDatabase();
  try {
    const gateway = await startGatewayProcess({ DATABASE_URL: db.url, ...opts.gatewayEnv });
    const admin = api(gateway.url, TEST_ADMIN_TOKEN);
    const workerToken = (await admin.call('createToken', { body: { name: 'soak-worker', role: 'worker', team: 'default' } })).body.secret;
    const agentSecret = (await admin.call('createToken', { body: { name: 'soak-agent', role: 'agent', team: 'soak' } })).body.secret;
    const agent = api(gateway.url, agentSecret);
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-soak-'));
    const withPort = opts.collectAtEnd || opts.relaunchEveryMs ? debuggableChromium(dataDir) : null;
    const worker = await startWorkerProcess({
      SIMFLEET_GATEWAY_URL: gateway.url,
      SIMFLEET_WORKER_TOKEN: workerToken,
      SIMFLEET_DATA_DIR: dataDir,
      ...(withPort ? { SIMFLEET_CHROMIUM: withPort } : {}),
      SIMFLEET_WEB_DEVICES: `iphone-15:${opts.sessions}`,
      ...opts.workerEnv,
    }, false);
    // A worker with 20 web devices registers only once its browser is up: on a busy machine that
    // took longer than the 20 s other tests allow a worker of fake devices (two soaks failed on it).
    await worker.waitForLog('registration', (l) => l.msg === 'registered with the gateway', 90_000);
    // 20 devices starting on a throttled host (a cgroup of 0.8 of a core) took more than a minute.
    await waitFor(`${opts.sessions} web devices available`, async () => ((await admin.call('listDevices')).body.devices.filter((d: { state: string }) => d.state === 'available').length >= opts.sessions ? true : undefined), 180_000);
    const ids: string[] = [];
    // Leases long enough for the whole soak (the default 15 minutes would end them half way).
    const ttlSeconds = Math.ceil(opts.durationMs / 1000) + 600;
    for (let i = 0; i < opts.sessions; i++) ids.push(await settledSession(agent, { ttlSeconds, idleTimeoutSeconds: 600 }));
    say(`${ids.length} sessions ready`);

    const gatewayPid = gateway.proc.pid!;
    const workerPid = worker.proc.pid!;
    const fdsBefore = fdCount(gatewayPid);
    const crowd = startCrowd();
    const wsBase = gateway.url.replace(/^http/, 'ws');
    const per = Math.ceil(opts.subscribers / ids.length);
    for (const [i, id] of ids.entries()) {
      const n = Math.min(per, opts.subscribers - i * per);
      if (n > 0) await crowd.ask({ connect: { url: `${wsBase}/v1/sessions/${id}/events`, token: agentSecret, n } }, 'ready');
    }
    say(`${opts.subscribers} subscribers connected`);

    const errors: string[] = [];
    // Each error carries when it happened and is printed at the next progress line: a run of hours
    // should not keep its first failure secret until the end.
    const fail = (what: string) => errors.push(`${Math.round((Date.now() - t0) / 1000)} s: ${what}`);
    let errorsSaid = 0;
    const samples: { t: number; gateway: number; worker: number; chromium: number; gpu: number; renderers: number; gFds: number; wFds: number; heap: number; native: number; held: Record<string, number> }[] = [];
    const t0 = Date.now();
    // The worker's JS heap and the native memory bound to JS objects (frame buffers, sharp's
    // images), as its heartbeats report them: RSS alone cannot tell a leak from an allocator that
    // keeps what it once needed.
    // What the worker's stores hold comes the same way: the part that grows, when one does.
    let workerMemory = { heap: 0, native: 0, held: {} as Record<string, number> };
    let strain: Record<string, number> = {};
    const readWorkerMemory = async () => {
      const text = (await admin.call('getMetrics')).text as string;
      const kind = (k: string) => Number(new RegExp(`^simfleet_worker_memory_bytes\\{host="[^"]+",kind="${k}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0) / 2 ** 20;
      const held = Object.fromEntries([...text.matchAll(/^simfleet_worker_held\{host="[^"]+",kind="([a-z_]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
      workerMemory = { heap: kind('heap_used'), native: kind('external') + kind('array_buffers'), held };
      strain = Object.fromEntries([...text.matchAll(/^simfleet_worker_strain_total\{host="[^"]+",kind="([a-z_]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    };
    const sample = () => {
      try {
        const byKind = chromiumPssByKind(workerPid);
        const chromium = Object.values(byKind).reduce((a, b) => a + b, 0);
        samples.push({ t: Date.now() - t0, gateway: rssMB(gatewayPid), worker: rssMB(workerPid), chromium, gpu: byKind['gpu-process'] ?? 0, renderers: byKind.renderer ?? 0, gFds: fdCount(gatewayPid), wFds: fdCount(workerPid), ...workerMemory });
      } catch (err) {
        fail(`sampling failed: ${(err as Error).message}`);
      }
      readWorkerMemory().catch((err: unknown) => fail(`reading the worker's memory from /metrics failed: ${(err as Error).message}`));
    };
    await readWorkerMemory();
    const refusals: Record<string, number> = {};
    const verdicts: Record<string, number> = {};
    /** Verdicts by the screen each action ended on: where a random walk spends its time. */
    const screens: Record<string, Record<string, number>> = {};
    const latency: Record<string, number[]> = {};
    let actions = 0;
    const byKindAtStart = roundAll(chromiumPssByKind(workerPid));
    const cycles = opts.relaunchEveryMs ? new RelaunchCycles(ids.length) : null;
    const relaunches: RelaunchRow[] = [];
    /** Every page collects its garbage; a few seconds later, Chromium's PSS by kind of process. */
    const collectAndMeasure = async () => {
      const done = withPort ? await collectGarbage(chromiumUnder(workerPid)).catch((err: Error) => ({ error: err.message })) : { error: 'no Chromium found to run with a DevTools port' };
      await new Promise((res) => setTimeout(res, 5000)); // freed pages go back to the system in the background
      return { done, byKind: chromiumPssByKind(workerPid) };
    };
    const measureCycle = async (cycle: number, agents: number, atMs: number) => {
      const { done, byKind } = await collectAndMeasure();
      const row: RelaunchRow = { cycle, atMin: Math.round(atMs / 6000) / 10, agents, pages: 'error' in done ? 0 : done.pages, domNodes: 'error' in done ? 0 : done.domNodes, documents: 'error' in done ? 0 : done.documents, v8UsedMB: 'error' in done ? 0 : done.v8UsedMB, v8TotalMB: 'error' in done ? 0 : done.v8TotalMB, renderersMB: Math.round(byKind.renderer ?? 0), gpuMB: Math.round(byKind['gpu-process'] ?? 0), chromiumMB: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0)), ...('error' in done ? { error: done.error } : {}) };
      relaunches.push(row);
      say(`relaunch cycle ${cycle}: ${JSON.stringify(row)}`);
    };
    if (cycles) await measureCycle(0, ids.length, 0);
    sample();
    const sampler = setInterval(sample, opts.sampleMs);
    const reporter = setInterval(() => {
      say(`${Math.round((Date.now() - t0) / 1000)} s: ${actions} actions, ${errors.length} errors, gateway ${samples.at(-1)?.gateway.toFixed(0)} MB, worker ${samples.at(-1)?.worker.toFixed(0)} MB`);
      for (const e of errors.slice(errorsSaid)) say(`  error at ${e}`);
      errorsSaid = errors.length;
    }, 60_000);
    const deadline = t0 + opts.durationMs;
    // Cycle by cycle: relaunch, wait for every agent, measure, let them go on.
    const coordinate = async () => {
      if (!cycles) return;
      for (const at of cycleTimes(opts.durationMs, opts.relaunchEveryMs!)) {
        await new Promise((res) => setTimeout(res, Math.max(0, t0 + at - Date.now())));
        cycles.begin();
        const arrived = await cycles.waitForAgents(120_000);
        try {
          await measureCycle(cycles.current, arrived, Date.now() - t0);
        } finally {
          cycles.end();
        }
      }
    };

    const timed = async (route: string, call: () => Promise<{ status: number; body: any; text: string; headers: Headers }>) => {
      const started = performance.now();
      const res = await call();
      (latency[route] ??= []).push(performance.now() - started);
      const code = res.body?.error?.code as string | undefined;
      if (res.status >= 500) fail(`${route}: ${res.status} ${res.text.slice(0, 200)}`);
      else if (res.status >= 400) {
        if (code && EXPECTED_REFUSALS.has(code)) refusals[code] = (refusals[code] ?? 0) + 1;
        else fail(`${route}: ${res.status} ${code ?? res.text.slice(0, 200)}`);
      }
      return res;
    };

    const explore = async (id: string, seed: number) => {
      let r = seed;
      const rand = () => ((r = (r * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const at = { params: { sessionId: id } };
      let cycle = 0;
      while (Date.now() < deadline) {
        try {
          if (cycles && cycle < cycles.current) {
            cycle = cycles.current;
            const res = await timed('runAction', () => agent.call('runAction', { ...at, body: { action: 'launch' } }));
            if (res.status === 200) actions++;
            await cycles.arrive();
            continue;
          }
          const screen = await timed('getScreen', () => agent.call('getScreen', { ...at, headers: { accept: 'application/json' } }));
          if (screen.status === 410) return void fail(`session ${id} ended under its agent: ${screen.text.slice(0, 200)}`);
          if (screen.status !== 200) {
            // A refusal is not a reason to hammer; an overloaded host says when to ask again.
            const retryAfterS = Number(screen.headers.get('retry-after'));
            await new Promise((res) => setTimeout(res, retryAfterS > 0 ? retryAfterS * 1000 : 500));
            continue;
          }
          const choices = (screen.body.elements as { ref: number; role: string; label: string; offscreen?: boolean }[]).filter((e) => TAPPABLE.has(e.role) && e.label);
          const roll = rand();
          const body = roll < 0.12 || choices.length === 0 ? { action: 'back' } : roll < 0.24 ? { action: 'scroll', direction: rand() < 0.5 ? 'down' : 'up' } : { action: 'tap', target: `@${choices[Math.floor(rand() * choices.length)]!.ref}` };
          const res = await timed('runAction', () => agent.call('runAction', { ...at, body }));
          if (res.status === 200) {
            actions++;
            verdicts[res.body.verdict] = (verdicts[res.body.verdict] ?? 0) + 1;
            const where = (screens[`${res.body.screen?.name ?? res.body.screen?.id ?? '?'}`] ??= {});
            where[res.body.verdict] = (where[res.body.verdict] ?? 0) + 1;
          }
          if (res.status === 410) {
            fail(`session ${id} ended under its agent: ${res.text.slice(0, 200)}`);
            return;
          }
        } catch (err) {
          fail(`agent on ${id}: ${(err as Error).message}`);
          await new Promise((res) => setTimeout(res, 1000));
        }
      }
    };
    await Promise.all([...ids.map((id, i) => explore(id, 7 + i)), coordinate()]);
    clearInterval(sampler);
    clearInterval(reporter);
    sample();
    let collected: SoakReport['collected'];
    const chromiumByKind: NonNullable<SoakReport['chromiumByKind']> = { start: byKindAtStart, end: roundAll(chromiumPssByKind(workerPid)) };
    if (opts.collectAtEnd) {
      const endMB = Math.round(chromiumPssMB(workerPid));
      const { done, byKind } = await collectAndMeasure();
      collected = 'error' in done ? done : { startMB: Math.round(samples[0]!.chromium), endMB, afterMB: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0)), pages: done.pages };
      chromiumByKind.after = roundAll(byKind);
      say(`after every page collected its garbage: ${JSON.stringify(collected)}`);
    }

    const events = (await crowd.ask<number[]>({ count: true }, 'counts')).reduce((a, b) => a + b, 0);
    await crowd.ask({ close: true }, 'closed');
    crowd.kill();
    for (const id of ids) {
      const s = (await agent.call('getSession', { params: { sessionId: id } })).body;
      if (s.state !== 'ready') fail(`session ${id} is ${s.state} (${s.endReason ?? ''}) at the end`);
      await agent.call('releaseSession', { params: { sessionId: id } });
    }
    try {
      await waitFor('every device reset and available again', async () => ((await admin.call('listDevices')).body.devices.filter((d: { state: string }) => d.state === 'available').length >= ids.length ? true : undefined), 180_000);
      await new Promise((res) => setTimeout(res, 5000)); // the old renderers' exit, and the new pages' first paints
      chromiumByKind.released = roundAll(chromiumPssByKind(workerPid));
      say(`after the sessions were released and their devices reset: ${JSON.stringify(chromiumByKind.released)}`);
    } catch (err) {
      fail(`devices after release: ${(err as Error).message}`);
    }
    // What the subscribers and sessions held must be given back; idle keep-alive connections and
    // pooled Postgres connections (30 s) close on their own. The agents' fetch keeps an idle socket
    // as long as the server's Keep-Alive hint says (Fastify's: 72 s), not its own 4 s default: with
    // a 40 s wait, the 20 agents' sockets were still open and read as 23 descriptors kept.
    let fdsAfter = fdCount(gatewayPid);
    for (let waited = 0; waited < 90_000 && fdsAfter > fdsBefore + 10; waited += 1000) {
      await new Promise((res) => setTimeout(res, 1000));
      fdsAfter = fdCount(gatewayPid);
    }

    const warm = samples.filter((s) => s.t >= opts.durationMs * 0.2);
    const trend = (name: string, rss: (s: (typeof samples)[number]) => number, fds: ((s: (typeof samples)[number]) => number) | null): ProcessTrend => ({
      name,
      rssMB: { start: Math.round(rss(samples[0]!)), end: Math.round(rss(samples.at(-1)!)), max: Math.round(Math.max(...samples.map(rss))), slopeMBPerMin: slopePerMin(warm.map((s) => ({ t: s.t, v: rss(s) }))) },
      ...(fds ? { fds: { start: fds(samples[0]!), end: fds(samples.at(-1)!), max: Math.max(...samples.map(fds)) } } : {}),
    });
    const sliceMs = Math.max(60_000, Math.round(opts.durationMs / 10 / 60_000) * 60_000);
    const timeline: TimelineRow[] = [];
    for (let from = 0; from < opts.durationMs; from += sliceMs) {
      const inSlice = samples.filter((s) => s.t >= from && s.t < from + sliceMs);
      if (!inSlice.length) continue;
      const m = (f: (s: (typeof samples)[number]) => number) => Math.round(percentile(inSlice.map(f), 50));
      timeline.push({ fromMin: from / 60_000, toMin: Math.min(from + sliceMs, opts.durationMs) / 60_000, gatewayMB: m((s) => s.gateway), workerMB: m((s) => s.worker), chromiumMB: m((s) => s.chromium), gpuMB: m((s) => s.gpu), renderersMB: m((s) => s.renderers), workerHeapMB: m((s) => s.heap), workerNativeMB: m((s) => s.native), gatewayFds: m((s) => s.gFds), workerFds: m((s) => s.wFds) });
    }
    const third = (k: number) => samples.filter((s) => s.t >= (opts.durationMs * k) / 3 && s.t < (opts.durationMs * (k + 1)) / 3);
    const late = (f: (s: (typeof samples)[number]) => number) => Math.round(percentile(third(2).map(f), 50) - percentile(third(1).map(f), 50));
    const lateGrowthMB = { gateway: late((s) => s.gateway), worker: late((s) => s.worker), chromium: late((s) => s.chromium), 'chromium gpu-process': late((s) => s.gpu), 'chromium renderers': late((s) => s.renderers), 'worker JS heap': late((s) => s.heap), 'worker native bound to JS': late((s) => s.native) };
    return {
      ...(collected ? { collected } : {}),
      chromiumByKind,
      ...(cycles ? { relaunches } : {}),
      timeline,
      lateGrowthMB,
      durationMs: Date.now() - t0,
      sessions: ids.length,
      subscribers: opts.subscribers,
      actions,
      verdicts,
      screens,
      refusals,
      errors,
      routes: Object.fromEntries(Object.entries(latency).map(([k, xs]) => [k, { n: xs.length, p50Ms: percentile(xs, 50), p99Ms: percentile(xs, 99) }])),
      events,
      processes: [trend('gateway', (s) => s.gateway, (s) => s.gFds), trend('worker', (s) => s.worker, (s) => s.wFds), trend('chromium (all processes, PSS)', (s) => s.chromium, null), trend('worker: JS heap used', (s) => s.heap, null), trend('worker: native memory bound to JS (external + array buffers)', (s) => s.native, null)],
      gatewayFds: { before: fdsBefore, after: fdsAfter },
      slowReads: slowReads(worker.logs),
      shortReads: shortReads(worker.logs),
      strain,
      held: Object.keys(samples.at(-1)!.held).map((kind) => {
        const v = (s: (typeof samples)[number]) => s.held[kind] ?? 0;
        return { kind, start: v(samples[0]!), end: v(samples.at(-1)!), max: Math.max(...samples.map(v)), slopePerMin: slopePerMin(warm.map((s) => ({ t: s.t, v: v(s) }))) };
      }),
    };
  } finally {
    await killAll();
    await db.drop();
  }
}

export function soakMarkdown(r: SoakReport): string {
  return [
    `# simfleet soak`,
    '',
    `${new Date().toISOString()} · ${Math.round(r.durationMs / 60_000)} min · ${r.sessions} agent sessions · ${r.subscribers} stream subscribers`,
    '',
    `Actions: ${r.actions} (${Object.entries(r.verdicts).map(([k, v]) => `${k} ${v}`).join(', ')}); typed refusals: ${Object.entries(r.refusals).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; events delivered: ${r.events}; errors: ${r.errors.length}`,
    '',
    `Verdicts by the screen the action ended on: ${Object.entries(r.screens).sort((a, b) => Object.values(b[1]).reduce((x, y) => x + y, 0) - Object.values(a[1]).reduce((x, y) => x + y, 0)).slice(0, 12).map(([k, v]) => `${k} (${Object.entries(v).map(([vk, vv]) => `${vk} ${vv}`).join(', ')})`).join('; ')}`,
    '',
    '| process (memory: RSS, or as named) | start MB | end MB | max MB | trend MB/min (after warm-up) | fds start | fds end | fds max |',
    '|---|---|---|---|---|---|---|---|',
    ...r.processes.map((p) => `| ${p.name} | ${p.rssMB.start} | ${p.rssMB.end} | ${p.rssMB.max} | ${p.rssMB.slopeMBPerMin} | ${p.fds?.start ?? '–'} | ${p.fds?.end ?? '–'} | ${p.fds?.max ?? '–'} |`),
    '',
    'Memory over time (the median of each slice, MB; descriptors as counts):',
    '',
    '| minutes | gateway | worker | chromium (PSS) | of it: gpu-process | of it: renderers | worker JS heap | worker native bound to JS | gateway fds | worker fds |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...r.timeline.map((t) => `| ${t.fromMin}–${Math.round(t.toMin * 10) / 10} | ${t.gatewayMB} | ${t.workerMB} | ${t.chromiumMB} | ${t.gpuMB} | ${t.renderersMB} | ${t.workerHeapMB} | ${t.workerNativeMB} | ${t.gatewayFds} | ${t.workerFds} |`),
    '',
    `Growth in the last third over the middle third (medians, MB; about 0 is a plateau): ${Object.entries(r.lateGrowthMB).map(([k, v]) => `${k} ${v >= 0 ? '+' : ''}${v}`).join(', ')}`,
    '',
    '| route | calls | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...Object.entries(r.routes).map(([k, v]) => `| ${k} | ${v.n} | ${v.p50Ms} | ${v.p99Ms} |`),
    '',
    slowReadsMarkdown(r.slowReads),
    '',
    shortReadsMarkdown(r.shortReads),
    '',
    `The worker's strain counters in /metrics at the last sample: ${Object.entries(r.strain).map(([k, v]) => `${k} ${v}`).join(', ') || 'none reported'}`,
    '',
    "What the worker's stores held (from its heartbeats; bytes as named, the rest counts):",
    '',
    '| held | start | end | max | trend per min (after warm-up) |',
    '|---|---|---|---|---|',
    ...r.held.map((h) => `| ${h.kind} | ${h.start} | ${h.end} | ${h.max} | ${h.slopePerMin} |`),
    '',
    ...(r.collected ? ['error' in r.collected ? `Chromium after every page collected its garbage: not measured (${r.collected.error}).` : `Chromium (PSS) after every page collected its garbage (${r.collected.pages} pages): ${r.collected.afterMB} MB, against ${r.collected.startMB} MB at the start and ${r.collected.endMB} MB at the end.`, ''] : []),
    ...(r.chromiumByKind ? [byKindTable(r.chromiumByKind), ''] : []),
    ...(r.relaunches ? [relaunchTable(r.relaunches), ''] : []),
    `Gateway descriptors: ${r.gatewayFds.before} before the subscribers, ${r.gatewayFds.after} after they and the sessions left (waiting up to 90 s for idle connections to close).`,
    ...(r.errors.length ? ['', '## Errors', '', ...r.errors.slice(0, 50).map((e) => `- ${e}`)] : []),
    '',
  ].join('\n');
}

function byKindTable(k: NonNullable<SoakReport['chromiumByKind']>): string {
  const kinds = [...new Set([...Object.keys(k.start), ...Object.keys(k.end), ...Object.keys(k.after ?? {}), ...Object.keys(k.released ?? {})])].sort();
  const cell = (r: Record<string, number> | undefined, kind: string) => (r ? String(r[kind] ?? 0) : '–');
  return [
    "Chromium's PSS by kind of process (MB):",
    '',
    '| process kind | start | end | after collection | after the sessions ended (devices reset onto fresh pages) |',
    '|---|---|---|---|---|',
    ...kinds.map((kind) => `| ${kind} | ${cell(k.start, kind)} | ${cell(k.end, kind)} | ${cell(k.after, kind)} | ${cell(k.released, kind)} |`),
  ].join('\n');
}

function relaunchTable(rows: RelaunchRow[]): string {
  return [
    'Relaunch cycles (every agent relaunched its app, then every page collected its garbage; cycle 0 is the fresh pages before the agents started):',
    '',
    '| cycle | minute | agents relaunched | pages collected | DOM nodes | documents | V8 heap used / reserved MB | renderers MB | gpu-process MB | chromium MB (PSS) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.cycle} | ${r.atMin} | ${r.agents} | ${r.pages}${r.error ? ` (${r.error})` : ''} | ${r.domNodes} | ${r.documents} | ${r.v8UsedMB} / ${r.v8TotalMB} | ${r.renderersMB} | ${r.gpuMB} | ${r.chromiumMB} |`),
  ].join('\n');
}
