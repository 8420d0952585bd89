// What a soak reports, and the report as Markdown (bench/results/soak.md).
import { shortReadsMarkdown, slowReadsMarkdown, type ShortReads, type SlowReads } from './slow-reads.js';

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
  /** The same by code and the hint each came with, which says what earned it. */
  refusalHints: Record<string, number>;
  /** The first few messages of each, as said. */
  refusalSamples: Record<string, string[]>;
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
  /**
   * Chromium's PSS by kind of process (MB): at the start, at the end, and after collection when
   * asked for. `released`: once the sessions were released and every device reset onto a fresh page (a new
   * renderer): what the renderers grew by during the sessions should be back.
   */
  chromiumByKind?: { start: Record<string, number>; end: Record<string, number>; after?: Record<string, number>; released?: Record<string, number> };
  /** One row per relaunch cycle (cycle 0: the fresh pages before the agents start), when asked for. */
  relaunches?: RelaunchRow[];
  /** One row per round of sessions (round 0: before the first), when asked for. */
  rounds?: RoundRow[];
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

/** One row per round of sessions: measured once every device was reset, before the next round. */
export interface RoundRow {
  round: number;
  atMin: number;
  /** Sessions their agents released (all of them, unless one had ended); 0 for round 0, before any. */
  released: number;
  /** From the release to every device reset and available again (s). */
  resetS: number;
  /** From then to the next round's sessions ready and subscribed to (s). */
  readyS?: number;
  /** Chromium's renderers and GPU process just before the release (MB): the round at its fullest. */
  inSessionRenderersMB: number | null;
  inSessionGpuMB: number | null;
  /** With no session on any device, after every page collected its garbage (MB). */
  renderersMB: number;
  gpuMB: number;
  browserMB: number;
  chromiumMB: number;
  pages: number;
  documents: number;
  v8UsedMB: number;
  workerMB: number;
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

export function soakMarkdown(r: SoakReport): string {
  return [
    `# simfleet soak`,
    '',
    `${new Date().toISOString()} · ${Math.round(r.durationMs / 60_000)} min · ${r.sessions} agent sessions · ${r.subscribers} stream subscribers`,
    '',
    `Actions: ${r.actions} (${Object.entries(r.verdicts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}); typed refusals: ${
      Object.entries(r.refusals)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }; events delivered: ${r.events}; errors: ${r.errors.length}`,
    '',
    `Refusals by their hint: ${
      Object.entries(r.refusalHints)
        .sort((x, y) => y[1] - x[1])
        .map(([k, v]) => `${v} × ${k}`)
        .join('; ') || 'none'
    }`,
    ...Object.entries(r.refusalSamples).map(([k, msgs]) => `- ${k}: ${msgs.map((m) => JSON.stringify(m)).join(' · ')}`),
    '',
    `Verdicts by the screen the action ended on: ${Object.entries(r.screens)
      .sort((a, b) => Object.values(b[1]).reduce((x, y) => x + y, 0) - Object.values(a[1]).reduce((x, y) => x + y, 0))
      .slice(0, 12)
      .map(
        ([k, v]) =>
          `${k} (${Object.entries(v)
            .map(([vk, vv]) => `${vk} ${vv}`)
            .join(', ')})`,
      )
      .join('; ')}`,
    '',
    '| process (memory: RSS, or as named) | start MB | end MB | max MB | trend MB/min (after warm-up) | fds start | fds end | fds max |',
    '|---|---|---|---|---|---|---|---|',
    ...r.processes.map(
      (p) =>
        `| ${p.name} | ${p.rssMB.start} | ${p.rssMB.end} | ${p.rssMB.max} | ${p.rssMB.slopeMBPerMin} | ${p.fds?.start ?? '–'} | ${p.fds?.end ?? '–'} | ${p.fds?.max ?? '–'} |`,
    ),
    '',
    'Memory over time (the median of each slice, MB; descriptors as counts):',
    '',
    '| minutes | gateway | worker | chromium (PSS) | of it: gpu-process | of it: renderers | worker JS heap | worker native bound to JS | gateway fds | worker fds |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...r.timeline.map(
      (t) =>
        `| ${t.fromMin}–${Math.round(t.toMin * 10) / 10} | ${t.gatewayMB} | ${t.workerMB} | ${t.chromiumMB} | ${t.gpuMB} | ${t.renderersMB} | ${t.workerHeapMB} | ${t.workerNativeMB} | ${t.gatewayFds} | ${t.workerFds} |`,
    ),
    '',
    `Growth in the last third over the middle third (medians, MB; about 0 is a plateau): ${Object.entries(r.lateGrowthMB)
      .map(([k, v]) => `${k} ${v >= 0 ? '+' : ''}${v}`)
      .join(', ')}`,
    '',
    '| route | calls | p50 ms | p99 ms |',
    '|---|---|---|---|',
    ...Object.entries(r.routes).map(([k, v]) => `| ${k} | ${v.n} | ${v.p50Ms} | ${v.p99Ms} |`),
    '',
    slowReadsMarkdown(r.slowReads),
    '',
    shortReadsMarkdown(r.shortReads),
    '',
    `The worker's strain counters in /metrics at the last sample: ${
      Object.entries(r.strain)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none reported'
    }`,
    '',
    "What the worker's stores held (from its heartbeats; bytes as named, the rest counts):",
    '',
    '| held | start | end | max | trend per min (after warm-up) |',
    '|---|---|---|---|---|',
    ...r.held.map((h) => `| ${h.kind} | ${h.start} | ${h.end} | ${h.max} | ${h.slopePerMin} |`),
    '',
    ...(r.collected
      ? [
          'error' in r.collected
            ? `Chromium after every page collected its garbage: not measured (${r.collected.error}).`
            : `Chromium (PSS) after every page collected its garbage (${r.collected.pages} pages): ${r.collected.afterMB} MB, against ${r.collected.startMB} MB at the start and ${r.collected.endMB} MB at the end.`,
          '',
        ]
      : []),
    ...(r.chromiumByKind ? [byKindTable(r.chromiumByKind), ''] : []),
    ...(r.relaunches ? [relaunchTable(r.relaunches), ''] : []),
    ...(r.rounds ? [roundTable(r.rounds), ''] : []),
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
    ...rows.map(
      (r) =>
        `| ${r.cycle} | ${r.atMin} | ${r.agents} | ${r.pages}${r.error ? ` (${r.error})` : ''} | ${r.domNodes} | ${r.documents} | ${r.v8UsedMB} / ${r.v8TotalMB} | ${r.renderersMB} | ${r.gpuMB} | ${r.chromiumMB} |`,
    ),
  ].join('\n');
}

function roundTable(rows: RoundRow[]): string {
  const cell = (v: number | null | undefined) => (v === null || v === undefined ? '–' : String(v));
  return [
    'Rounds of sessions (every agent released its session; measured once every device was reset and every page collected its garbage, before the next round; round 0 is before the first sessions):',
    '',
    '| round | minute | released | reset s | next ready s | in session: renderers / gpu-process MB | between rounds: renderers MB | gpu-process MB | browser MB | chromium MB (PSS) | pages | documents | V8 heap used MB | worker RSS MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.round} | ${r.atMin} | ${r.released} | ${r.resetS} | ${cell(r.readyS)} | ${cell(r.inSessionRenderersMB)} / ${cell(r.inSessionGpuMB)} | ${r.renderersMB} | ${r.gpuMB} | ${r.browserMB} | ${r.chromiumMB} | ${r.pages} | ${r.documents} | ${r.v8UsedMB} | ${r.workerMB}${r.error ? ` (${r.error})` : ''} |`,
    ),
  ].join('\n');
}
