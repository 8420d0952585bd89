// The soak: a real gateway, a real worker with one web device per agent, agents doing random valid
// things on the sample app (read the screen, tap what it offers, go back, scroll) and a crowd of
// event-stream subscribers, for a while. What it watches is what a farm dies of slowly: memory that
// only grows, descriptors that leak, latency that drifts, and any answer that is not a typed one.
// `npm run soak` runs it for 30 minutes; test/browser/soak.test.ts runs a short one in `npm test`.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api.js';
import { startCrowd } from '../helpers/crowd.js';
import { createTestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { collectGarbage, debuggableChromium } from './collect.js';
import { Cycles, schedule } from './cycles.js';
import { chromiumPssByKind, chromiumPssMB, chromiumUnder, fdCount, roundAll, rssMB } from './measure.js';
import type { ProcessTrend, RelaunchRow, RoundRow, SoakReport, TimelineRow } from './report.js';
import { shortReads, slowReads } from './slow-reads.js';

export { soakMarkdown } from './report.js';

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
   * have, every page collects its garbage and Chromium is measured (cycles.ts). What the
   * renderers still hold then is theirs, not the pages' state: flat from cycle to cycle or not.
   */
  relaunchEveryMs?: number;
  /**
   * Every this often, every agent releases its session; once every device is reset, every page
   * collects its garbage and Chromium is measured with no session on it, then a new round of
   * sessions starts (and the subscribers follow them). Round 0 is measured before the first
   * sessions. What the browser and GPU processes hold between rounds must not climb round by round.
   */
  roundEveryMs?: number;
  /**
   * At the end, every page collects its garbage and Chromium is measured again (collect.ts): what
   * the renderers grew by and give back then was garbage not yet collected, not a leak.
   */
  collectAtEnd?: boolean;
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

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const say = opts.progress ?? (() => undefined);
  const db = await createTestDatabase();
  try {
    const gateway = await startGatewayProcess({ DATABASE_URL: db.url, ...opts.gatewayEnv });
    const admin = api(gateway.url, TEST_ADMIN_TOKEN);
    const workerToken = (await admin.call('createToken', { body: { name: 'soak-worker', role: 'worker', team: 'default' } })).body.secret;
    const agentSecret = (await admin.call('createToken', { body: { name: 'soak-agent', role: 'agent', team: 'soak' } })).body.secret;
    const agent = api(gateway.url, agentSecret);
    const allAvailable = async () =>
      (await admin.call('listDevices')).body.devices.filter((d: { state: string }) => d.state === 'available').length >= opts.sessions ? true : undefined;
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-soak-'));
    const withPort = opts.collectAtEnd || opts.relaunchEveryMs || opts.roundEveryMs ? debuggableChromium(dataDir) : null;
    const worker = await startWorkerProcess(
      {
        SIMFLEET_GATEWAY_URL: gateway.url,
        SIMFLEET_WORKER_TOKEN: workerToken,
        SIMFLEET_DATA_DIR: dataDir,
        ...(withPort ? { SIMFLEET_CHROMIUM: withPort } : {}),
        SIMFLEET_WEB_DEVICES: `iphone-15:${opts.sessions}`,
        ...opts.workerEnv,
      },
      false,
    );
    // A worker with 20 web devices registers only once its browser is up: on a busy machine that
    // took longer than the 20 s other tests allow a worker of fake devices (two soaks failed on it).
    await worker.waitForLog('registration', (l) => l.msg === 'registered with the gateway', 90_000);
    // 20 devices starting on a throttled host (a cgroup of 0.8 of a core) took more than a minute.
    await waitFor(`${opts.sessions} web devices available`, allAvailable, 180_000);
    const gatewayPid = gateway.proc.pid!;
    const workerPid = worker.proc.pid!;
    /** Every page collects its garbage; a few seconds later, Chromium's PSS by kind of process. */
    const collectAndMeasure = async () => {
      const done = withPort
        ? await collectGarbage(chromiumUnder(workerPid)).catch((err: Error) => ({ error: err.message }))
        : { error: 'no Chromium found to run with a DevTools port' };
      await new Promise((res) => setTimeout(res, 5000)); // freed pages go back to the system in the background
      return { done, byKind: chromiumPssByKind(workerPid) };
    };
    const rounds: RoundRow[] = [];
    /** One row of the rounds' table, measured with no session on any device. */
    const measureRound = async (
      round: number,
      released: number,
      atMs: number,
      resetS: number,
      inSession: Record<string, number> | null,
      error?: string,
    ): Promise<RoundRow> => {
      const { done, byKind } = await collectAndMeasure();
      const ok = !('error' in done);
      return {
        round,
        atMin: Math.round(atMs / 6000) / 10,
        released,
        resetS,
        inSessionRenderersMB: inSession ? Math.round(inSession.renderer ?? 0) : null,
        inSessionGpuMB: inSession ? Math.round(inSession['gpu-process'] ?? 0) : null,
        renderersMB: Math.round(byKind.renderer ?? 0),
        gpuMB: Math.round(byKind['gpu-process'] ?? 0),
        browserMB: Math.round(byKind.browser ?? 0),
        chromiumMB: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0)),
        pages: ok ? done.pages : 0,
        documents: ok ? done.documents : 0,
        v8UsedMB: ok ? done.v8UsedMB : 0,
        workerMB: Math.round(rssMB(workerPid)),
        ...(error || !ok ? { error: [error, ok ? undefined : done.error].filter(Boolean).join('; ') } : {}),
      };
    };
    if (opts.roundEveryMs) rounds.push(await measureRound(0, 0, 0, 0, null));

    const ids: string[] = [];
    // Leases long enough for the whole soak (the default 15 minutes would end them half way).
    const ttlSeconds = Math.ceil(opts.durationMs / 1000) + 600;
    // Five at a time, as a team's jobs arrive together: one by one, twenty sessions took two minutes
    // of a five-minute round, most of it each one's wait for its first screen to settle.
    const openSessions = async () => {
      for (let from = 0; from < opts.sessions; from += 5) {
        const batch = Array.from({ length: Math.min(5, opts.sessions - from) }, (_, k) => from + k);
        await Promise.all(batch.map(async (i) => (ids[i] = await settledSession(agent, { ttlSeconds, idleTimeoutSeconds: 600 }))));
      }
    };
    const opening = Date.now();
    await openSessions();
    if (rounds[0]) {
      rounds[0].readyS = Math.round((Date.now() - opening) / 100) / 10;
      say(`round 0: ${JSON.stringify(rounds[0])}`);
    }
    say(`${ids.length} sessions ready`);

    const fdsBefore = fdCount(gatewayPid);
    const crowd = startCrowd();
    const wsBase = gateway.url.replace(/^http/, 'ws');
    /** The subscribers, spread over the sessions of the round (a new round's sessions get new ones). */
    const subscribe = async () => {
      const per = Math.ceil(opts.subscribers / ids.length);
      for (const [i, id] of ids.entries()) {
        const n = Math.min(per, opts.subscribers - i * per);
        if (n > 0) await crowd.ask({ connect: { url: `${wsBase}/v1/sessions/${id}/events`, token: agentSecret, n } }, 'ready');
      }
    };
    await subscribe();
    say(`${opts.subscribers} subscribers connected`);

    const errors: string[] = [];
    // Each error carries when it happened and is printed at the next progress line: a run of hours
    // should not keep its first failure secret until the end.
    const fail = (what: string) => errors.push(`${Math.round((Date.now() - t0) / 1000)} s: ${what}`);
    let errorsSaid = 0;
    const samples: {
      t: number;
      gateway: number;
      worker: number;
      chromium: number;
      gpu: number;
      renderers: number;
      gFds: number;
      wFds: number;
      heap: number;
      native: number;
      held: Record<string, number>;
    }[] = [];
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
      strain = Object.fromEntries(
        [...text.matchAll(/^simfleet_worker_strain_total\{host="[^"]+",kind="([a-z_]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
      );
    };
    const sample = () => {
      try {
        const byKind = chromiumPssByKind(workerPid);
        const chromium = Object.values(byKind).reduce((a, b) => a + b, 0);
        samples.push({
          t: Date.now() - t0,
          gateway: rssMB(gatewayPid),
          worker: rssMB(workerPid),
          chromium,
          gpu: byKind['gpu-process'] ?? 0,
          renderers: byKind.renderer ?? 0,
          gFds: fdCount(gatewayPid),
          wFds: fdCount(workerPid),
          ...workerMemory,
        });
      } catch (err) {
        fail(`sampling failed: ${(err as Error).message}`);
      }
      readWorkerMemory().catch((err: unknown) => fail(`reading the worker's memory from /metrics failed: ${(err as Error).message}`));
    };
    await readWorkerMemory();
    const refusals: Record<string, number> = {};
    /** The same by the hint each came with: what the agent did to earn it (a control below the fold...). */
    const refusalHints: Record<string, number> = {};
    const refusalSamples: Record<string, string[]> = {};
    const verdicts: Record<string, number> = {};
    /** Verdicts by the screen each action ended on: where a random walk spends its time. */
    const screens: Record<string, Record<string, number>> = {};
    const latency: Record<string, number[]> = {};
    let actions = 0;
    const byKindAtStart = roundAll(chromiumPssByKind(workerPid));
    const cycles = opts.relaunchEveryMs || opts.roundEveryMs ? new Cycles(ids.length) : null;
    const relaunches: RelaunchRow[] = [];
    const measureCycle = async (cycle: number, agents: number, atMs: number) => {
      const { done, byKind } = await collectAndMeasure();
      const row: RelaunchRow = {
        cycle,
        atMin: Math.round(atMs / 6000) / 10,
        agents,
        pages: 'error' in done ? 0 : done.pages,
        domNodes: 'error' in done ? 0 : done.domNodes,
        documents: 'error' in done ? 0 : done.documents,
        v8UsedMB: 'error' in done ? 0 : done.v8UsedMB,
        v8TotalMB: 'error' in done ? 0 : done.v8TotalMB,
        renderersMB: Math.round(byKind.renderer ?? 0),
        gpuMB: Math.round(byKind['gpu-process'] ?? 0),
        chromiumMB: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0)),
        ...('error' in done ? { error: done.error } : {}),
      };
      relaunches.push(row);
      say(`relaunch cycle ${cycle}: ${JSON.stringify(row)}`);
    };
    if (opts.relaunchEveryMs) await measureCycle(0, ids.length, 0);
    sample();
    const sampler = setInterval(sample, opts.sampleMs);
    const reporter = setInterval(() => {
      say(
        `${Math.round((Date.now() - t0) / 1000)} s: ${actions} actions, ${errors.length} errors, gateway ${samples.at(-1)?.gateway.toFixed(0)} MB, worker ${samples.at(-1)?.worker.toFixed(0)} MB`,
      );
      for (const e of errors.slice(errorsSaid)) say(`  error at ${e}`);
      errorsSaid = errors.length;
    }, 60_000);
    const deadline = t0 + opts.durationMs;
    /**
     * Between two rounds: every device reset after its release, measured, then the next round's
     * sessions and their subscribers. A failure is the row's and the report's, and the agents go on
     * (an agent left on an ended session then reports that too).
     */
    const nextRound = async (released: number, inSession: Record<string, number>) => {
      const atMs = Date.now() - t0;
      let resetS = 0;
      let error: string | undefined;
      try {
        await waitFor('every device reset and available again', allAvailable, 180_000);
        resetS = Math.round((Date.now() - t0 - atMs) / 100) / 10;
      } catch (err) {
        error = (err as Error).message;
      }
      const row = await measureRound(rounds.length, released, atMs, resetS, inSession, error);
      const opening = Date.now();
      try {
        await openSessions();
        await subscribe();
        row.readyS = Math.round((Date.now() - opening) / 100) / 10;
      } catch (err) {
        fail(`round ${row.round}: the next sessions: ${(err as Error).message}`);
      }
      if (row.error) fail(`round ${row.round}: ${row.error}`);
      rounds.push(row);
      say(`round ${row.round}: ${JSON.stringify(row)}`);
    };
    // Cycle by cycle: have every agent relaunch (or release), wait for them, measure, let them go on.
    const coordinate = async () => {
      if (!cycles) return;
      for (const { at, kind } of schedule(opts.durationMs, opts.relaunchEveryMs, opts.roundEveryMs)) {
        await new Promise((res) => setTimeout(res, Math.max(0, t0 + at - Date.now())));
        const inSession = chromiumPssByKind(workerPid);
        cycles.begin(kind);
        const arrived = await cycles.waitForAgents(120_000);
        try {
          if (kind === 'round') await nextRound(arrived, inSession);
          else await measureCycle(relaunches.length, arrived, Date.now() - t0);
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
        if (code && EXPECTED_REFUSALS.has(code)) {
          refusals[code] = (refusals[code] ?? 0) + 1;
          const why = `${code}: ${res.body.error.hint ?? '(no hint)'}`;
          refusalHints[why] = (refusalHints[why] ?? 0) + 1;
          const samples = (refusalSamples[why] ??= []);
          if (samples.length < 3) samples.push(String(res.body.error.message).slice(0, 300));
        } else fail(`${route}: ${res.status} ${code ?? res.text.slice(0, 200)}`);
      }
      return res;
    };

    /** Agent `i` drives the session ids[i], which a new round replaces. */
    const explore = async (i: number, seed: number) => {
      let r = seed;
      const rand = () => (r = (r * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      let cycle = 0;
      while (Date.now() < deadline) {
        const id = ids[i]!;
        const at = { params: { sessionId: id } };
        try {
          if (cycles && cycle < cycles.current) {
            cycle = cycles.current;
            if (cycles.kind === 'round') {
              await timed('releaseSession', () => agent.call('releaseSession', at));
            } else {
              const res = await timed('runAction', () => agent.call('runAction', { ...at, body: { action: 'launch' } }));
              if (res.status === 200) actions++;
            }
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
          // Only what has a ref: an element with none cannot be seen or touched (below the fold, say).
          // Taking those too had a third of all taps go to "@null" and be refused NO_MATCH (71-minute
          // soak of 2026-12-07: 2,431 of 7,597 actions).
          const choices = (screen.body.elements as { ref: number | null; role: string; label: string }[]).filter(
            (e) => TAPPABLE.has(e.role) && e.label && typeof e.ref === 'number',
          );
          const roll = rand();
          const body =
            roll < 0.12 || choices.length === 0
              ? { action: 'back' }
              : roll < 0.24
                ? { action: 'scroll', direction: rand() < 0.5 ? 'down' : 'up' }
                : { action: 'tap', target: `@${choices[Math.floor(rand() * choices.length)]!.ref}` };
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
    await Promise.all([...ids.map((_, i) => explore(i, 7 + i)), coordinate()]);
    clearInterval(sampler);
    clearInterval(reporter);
    sample();
    let collected: SoakReport['collected'];
    const chromiumByKind: NonNullable<SoakReport['chromiumByKind']> = { start: byKindAtStart, end: roundAll(chromiumPssByKind(workerPid)) };
    if (opts.collectAtEnd) {
      const endMB = Math.round(chromiumPssMB(workerPid));
      const { done, byKind } = await collectAndMeasure();
      collected =
        'error' in done
          ? done
          : { startMB: Math.round(samples[0]!.chromium), endMB, afterMB: Math.round(Object.values(byKind).reduce((a, b) => a + b, 0)), pages: done.pages };
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
      await waitFor('every device reset and available again', allAvailable, 180_000);
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
      rssMB: {
        start: Math.round(rss(samples[0]!)),
        end: Math.round(rss(samples.at(-1)!)),
        max: Math.round(Math.max(...samples.map(rss))),
        slopeMBPerMin: slopePerMin(warm.map((s) => ({ t: s.t, v: rss(s) }))),
      },
      ...(fds ? { fds: { start: fds(samples[0]!), end: fds(samples.at(-1)!), max: Math.max(...samples.map(fds)) } } : {}),
    });
    const sliceMs = Math.max(60_000, Math.round(opts.durationMs / 10 / 60_000) * 60_000);
    const timeline: TimelineRow[] = [];
    for (let from = 0; from < opts.durationMs; from += sliceMs) {
      const inSlice = samples.filter((s) => s.t >= from && s.t < from + sliceMs);
      if (!inSlice.length) continue;
      const m = (f: (s: (typeof samples)[number]) => number) => Math.round(percentile(inSlice.map(f), 50));
      timeline.push({
        fromMin: from / 60_000,
        toMin: Math.min(from + sliceMs, opts.durationMs) / 60_000,
        gatewayMB: m((s) => s.gateway),
        workerMB: m((s) => s.worker),
        chromiumMB: m((s) => s.chromium),
        gpuMB: m((s) => s.gpu),
        renderersMB: m((s) => s.renderers),
        workerHeapMB: m((s) => s.heap),
        workerNativeMB: m((s) => s.native),
        gatewayFds: m((s) => s.gFds),
        workerFds: m((s) => s.wFds),
      });
    }
    const third = (k: number) => samples.filter((s) => s.t >= (opts.durationMs * k) / 3 && s.t < (opts.durationMs * (k + 1)) / 3);
    const late = (f: (s: (typeof samples)[number]) => number) => Math.round(percentile(third(2).map(f), 50) - percentile(third(1).map(f), 50));
    const lateGrowthMB = {
      gateway: late((s) => s.gateway),
      worker: late((s) => s.worker),
      chromium: late((s) => s.chromium),
      'chromium gpu-process': late((s) => s.gpu),
      'chromium renderers': late((s) => s.renderers),
      'worker JS heap': late((s) => s.heap),
      'worker native bound to JS': late((s) => s.native),
    };
    return {
      ...(collected ? { collected } : {}),
      chromiumByKind,
      ...(opts.relaunchEveryMs ? { relaunches } : {}),
      ...(opts.roundEveryMs ? { rounds } : {}),
      timeline,
      lateGrowthMB,
      durationMs: Date.now() - t0,
      sessions: ids.length,
      subscribers: opts.subscribers,
      actions,
      verdicts,
      screens,
      refusals,
      refusalHints,
      refusalSamples,
      errors,
      routes: Object.fromEntries(Object.entries(latency).map(([k, xs]) => [k, { n: xs.length, p50Ms: percentile(xs, 50), p99Ms: percentile(xs, 99) }])),
      events,
      processes: [
        trend(
          'gateway',
          (s) => s.gateway,
          (s) => s.gFds,
        ),
        trend(
          'worker',
          (s) => s.worker,
          (s) => s.wFds,
        ),
        trend('chromium (all processes, PSS)', (s) => s.chromium, null),
        trend('worker: JS heap used', (s) => s.heap, null),
        trend('worker: native memory bound to JS (external + array buffers)', (s) => s.native, null),
      ],
      gatewayFds: { before: fdsBefore, after: fdsAfter },
      slowReads: slowReads(worker.logs),
      shortReads: shortReads(worker.logs),
      strain,
      held: Object.keys(samples.at(-1)!.held).map((kind) => {
        const v = (s: (typeof samples)[number]) => s.held[kind] ?? 0;
        return {
          kind,
          start: v(samples[0]!),
          end: v(samples.at(-1)!),
          max: Math.max(...samples.map(v)),
          slopePerMin: slopePerMin(warm.map((s) => ({ t: s.t, v: v(s) }))),
        };
      }),
    };
  } finally {
    await killAll();
    await db.drop();
  }
}
