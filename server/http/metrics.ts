// Prometheus metrics. Farm-wide gauges are read from Postgres at scrape time, so every gateway
// reports the same truth; a gauge that cannot be read is left out rather than reported as zero.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queryable } from '../db/database.js';
import { countDevicesByState, countQuarantined } from '../db/repositories/devices.js';
import { countHostsByState, countStrainedHosts } from '../db/repositories/hosts.js';
import { STRAIN_MEMORY_MS } from '../domain/strain.js';
import { countByState, queueDepthByPriority } from '../db/repositories/sessions.js';
import type { Schemas } from '../../openapi/contract.js';
import type { WorkerReport } from '../hub/worker-link.js';

export interface GatewayMetrics {
  registry: Registry;
  protocolErrors: Counter<'code'>;
  /** A worker's process memory and what its stores hold, as its heartbeats report them, for the hosts this gateway holds. */
  setWorkerReport(hostId: string, report: WorkerReport | undefined): void;
  placements: Counter;
  queueWait: Histogram;
  sessionsEnded: Counter<'reason'>;
  quarantines: Counter;
  /** This gateway's own pauses (GC, starvation, a stopped VM), during which it heard no worker. */
  pauses: Counter;
  forwardedCommands: Counter<'direction'>;
  perceptionAnswers: Counter<'method' | 'outcome'>;
  escalations: Counter<'reason'>;
  memoryWrites: Counter<'outcome'>;
  streamSubscribers: Gauge<'stream'>;
  streamEvents: Counter<'stream'>;
  streamCutOffs: Counter<'stream' | 'reason'>;
  streamCoalesced: Counter;
}

const SESSION_STATES = ['queued', 'preparing', 'ready', 'ended'];
const PRIORITIES = ['interactive', 'ci', 'background'];
type HeldKind = keyof Schemas['WorkerHoldings'];
// Every kind the contract names, checked by the compiler: a kind added there cannot be left out here.
const HELD_KINDS = Object.keys({
  frames: 1,
  frameBytes: 1,
  marks: 1,
  markedFrameBytes: 1,
  fineProfilesPending: 1,
  appMemories: 1,
  screens: 1,
  faces: 1,
  edges: 1,
  escalations: 1,
  memoryBatchesPending: 1,
  ocrCacheEntries: 1,
  eventLogEvents: 1,
  pageJsHeapBytes: 1,
  pageDomNodes: 1,
  pageEventListeners: 1,
} satisfies Record<HeldKind, 1>) as HeldKind[];
const STRAIN_KINDS = Object.keys({ slowReads: 1, readsCutShort: 1, readsOverdue: 1, capturesGivenUp: 1 } satisfies Record<
  keyof Schemas['WorkerStrain'],
  1
>) as (keyof Schemas['WorkerStrain'])[];
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A gauge read from Postgres at scrape time; left out (not zero) when the read fails. */
function dbGauge(registry: Registry, logger: Logger, name: string, help: string, labelNames: string[], read: (g: Gauge) => Promise<void>): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        await read(this);
      } catch (err) {
        logger.warn({ err, metric: name }, 'could not read a metric from the database');
      }
    },
  });
}

const HOST_STATES = ['online', 'offline'];
const DEVICE_STATES = ['available', 'leased', 'preparing', 'reclaiming', 'broken', 'offline'];
const PLATFORMS = ['web', 'android', 'ios'];

export function createMetrics(db: Queryable, workerConnections: () => number, logger: Logger): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'simfleet_hosts',
    help: 'Hosts by state, farm-wide (from Postgres)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await countHostsByState(db);
        for (const state of HOST_STATES) this.set({ state }, rows.find((r) => r.state === state)?.n ?? 0);
      } catch (err) {
        logger.warn({ err }, 'could not read host counts for /metrics');
      }
    },
  });
  new Gauge({
    name: 'simfleet_hosts_strained',
    help: `Online hosts whose worker reported new signs of strain (slow reads, overdue reads, captures given up) in the last ${STRAIN_MEMORY_MS / 60_000} minutes: placement puts new sessions elsewhere while another host has a device that fits (from Postgres)`,
    registers: [registry],
    async collect() {
      try {
        this.set(await countStrainedHosts(db, STRAIN_MEMORY_MS));
      } catch (err) {
        logger.warn({ err }, 'could not read strained hosts for /metrics');
      }
    },
  });
  new Gauge({
    name: 'simfleet_devices',
    help: 'Devices by state and platform, farm-wide (from Postgres)',
    labelNames: ['state', 'platform'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await countDevicesByState(db);
        for (const state of DEVICE_STATES) {
          for (const platform of PLATFORMS) this.set({ state, platform }, rows.find((r) => r.state === state && r.platform === platform)?.n ?? 0);
        }
      } catch (err) {
        logger.warn({ err }, 'could not read device counts for /metrics');
      }
    },
  });
  new Gauge({
    name: 'simfleet_worker_connections',
    help: 'Worker connections held by this gateway',
    registers: [registry],
    collect() {
      this.set(workerConnections());
    },
  });
  const workerMemory = new Gauge({
    name: 'simfleet_worker_memory_bytes',
    help: "Memory of the worker processes connected to this gateway, from their heartbeats (Node's process.memoryUsage())",
    labelNames: ['host', 'kind'],
    registers: [registry],
  });
  const workerHeld = new Gauge({
    name: 'simfleet_worker_held',
    help: "What each worker's bounded stores hold (frames, marks, screen memory, caches, event logs), from its heartbeats: a growing worker shows here which part grows",
    labelNames: ['host', 'kind'],
    registers: [registry],
  });
  // The worker counts these itself, from its start; the gateway mirrors its count (a restarted
  // worker starts again from 0, which Prometheus's rate() reads as a counter reset).
  const workerStrain = new Counter({
    name: 'simfleet_worker_strain_total',
    help: "Signs that a host cannot keep up with its devices, from its worker's heartbeats: screen reads slower than 5 s, reads that answered without all the text drawn in pixels, reads answered HOST_OVERLOADED, captures given up before their turn",
    labelNames: ['host', 'kind'],
    registers: [registry],
  });
  const setWorkerReport = (host: string, report: WorkerReport | undefined) => {
    const m = report?.process;
    const kinds = { rss: m?.rssBytes, heap_used: m?.heapUsedBytes, external: m?.externalBytes, array_buffers: m?.arrayBuffersBytes };
    for (const [kind, value] of Object.entries(kinds)) {
      if (value === undefined) workerMemory.remove({ host, kind });
      else workerMemory.set({ host, kind }, value);
    }
    for (const kind of HELD_KINDS) {
      const value = report?.held?.[kind];
      if (value === undefined) workerHeld.remove({ host, kind: snake(kind) });
      else workerHeld.set({ host, kind: snake(kind) }, value);
    }
    for (const kind of STRAIN_KINDS) {
      const value = report?.strain?.[kind];
      workerStrain.remove({ host, kind: snake(kind) });
      if (value !== undefined) workerStrain.inc({ host, kind: snake(kind) }, value);
    }
  };
  const protocolErrors = new Counter({
    name: 'simfleet_worker_protocol_errors_total',
    help: 'Worker connections closed by this gateway, by error code',
    labelNames: ['code'],
    registers: [registry],
  });
  dbGauge(registry, logger, 'simfleet_queue_depth', 'Queued session requests by priority, farm-wide', ['priority'], async (g) => {
    const rows = await queueDepthByPriority(db);
    for (const priority of PRIORITIES) g.set({ priority }, rows.find((r) => r.priority === priority)?.n ?? 0);
  });
  dbGauge(registry, logger, 'simfleet_sessions', 'Sessions by state, farm-wide (ended: within the last hour)', ['state'], async (g) => {
    const rows = await countByState(db);
    for (const state of SESSION_STATES) g.set({ state }, rows.find((r) => r.state === state)?.n ?? 0);
  });
  dbGauge(registry, logger, 'simfleet_devices_quarantined', 'Devices taken out of service after a failed reset or prepare', [], async (g) => {
    g.set(await countQuarantined(db));
  });
  const placements = new Counter({ name: 'simfleet_placements_total', help: 'Sessions placed on a device by this gateway', registers: [registry] });
  const queueWait = new Histogram({
    name: 'simfleet_queue_wait_seconds',
    help: 'Time from request to placement, for sessions this gateway placed',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const sessionsEnded = new Counter({
    name: 'simfleet_sessions_ended_total',
    help: 'Sessions this gateway ended by expiry or timeout, by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  const quarantines = new Counter({ name: 'simfleet_quarantines_total', help: 'Devices this gateway quarantined', registers: [registry] });
  const pauses = new Counter({
    name: 'simfleet_gateway_pauses_total',
    help: 'Times this gateway stopped running for 250 ms or more (its hosts are allowed the pause before they count as silent)',
    registers: [registry],
  });
  const forwardedCommands = new Counter({
    name: 'simfleet_forwarded_commands_total',
    help: 'Worker commands relayed between gateways: sent (for a host held elsewhere) or served (for another gateway)',
    labelNames: ['direction'],
    registers: [registry],
  });
  const perceptionAnswers = new Counter({
    name: 'simfleet_perception_answers_total',
    help: 'Perception answers given through this gateway, by method and outcome (changed yes/no/unknown, a wait status, or an error code)',
    labelNames: ['method', 'outcome'],
    registers: [registry],
  });
  const escalations = new Counter({
    name: 'simfleet_escalations_total',
    help: 'Escalations recorded through this gateway, by reason (unknown-screen, unresolved-intent, unexpected-outcome, unfamiliar-modal, uncovered-goal)',
    labelNames: ['reason'],
    registers: [registry],
  });
  const memoryWrites = new Counter({
    name: 'simfleet_memory_writes_total',
    help: "Workers' memory writes through this gateway: applied, repeated (a retry of one applied before), forgotten (for an app forgotten since), refused (data the database would not store; final) or failed (retried)",
    labelNames: ['outcome'],
    registers: [registry],
  });
  const streamSubscribers = new Gauge({
    name: 'simfleet_stream_subscribers',
    help: 'Event and screen stream subscribers connected to this gateway, by stream',
    labelNames: ['stream'],
    registers: [registry],
  });
  const streamEvents = new Counter({
    name: 'simfleet_stream_events_total',
    help: 'Events handed to stream subscribers on this gateway, by stream',
    labelNames: ['stream'],
    registers: [registry],
  });
  const streamCutOffs = new Counter({
    name: 'simfleet_stream_cutoffs_total',
    help: 'Stream subscribers this gateway closed for not keeping up: backlog (over the hard limit) or unanswered (no pong)',
    labelNames: ['stream', 'reason'],
    registers: [registry],
  });
  const streamCoalesced = new Counter({
    name: 'simfleet_stream_coalesced_total',
    help: 'Frame-changes merged into a later one for a subscriber that fell behind',
    registers: [registry],
  });
  return {
    registry,
    protocolErrors,
    setWorkerReport,
    placements,
    queueWait,
    sessionsEnded,
    quarantines,
    pauses,
    forwardedCommands,
    perceptionAnswers,
    escalations,
    memoryWrites,
    streamSubscribers,
    streamEvents,
    streamCutOffs,
    streamCoalesced,
  };
}

export function installHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'simfleet_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    duration.observe({ method: req.method, route: req.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
