// The worker's public entry: the only module outside workers/ may import (the CLI's composition
// root). One worker runs per host: it reports the host's devices and keeps its link to the gateway.
import type { Logger } from 'pino';
import { Backoff } from './connection/backoff.js';
import { websocketDialer } from './connection/dial.js';
import { GatewayLink } from './connection/gateway-link.js';
import type { Dial } from './connection/socket.js';
import type { WorkerConfig } from './config.js';
import { WorkerConfigError } from './config.js';
import { DeviceError, type BackendProvider, type PageMemory } from './devices/backend.js';
import { Inventory, type InventorySnapshot } from './devices/inventory.js';
import { LeaseKeeper } from './devices/leases.js';
import { checkCallParams } from './call-params.js';
import { createProviders } from './devices/registry.js';
import { applyPermission, type PermissionRequest } from './devices/permissions.js';
import { loadHostIdentity, type HostIdentity } from './host/identity.js';
import { Perception } from './perception/service.js';
import { Actor } from './acting/act.js';
import { StepRunner } from './acting/runner.js';
import { DeviceLanes } from './acting/lanes.js';
import { LOOK_GIVE_UP_MS, look } from './perception/look.js';
import { giveUpAfter } from './overdue.js';
import { liveFrame, liveRequest } from './perception/live.js';
import { type MemoryChannel, MemorySync } from './memory/sync.js';
import { identity as screenIdentity, Understanding } from './understanding/service.js';
import { Feeds } from './streams/feeds.js';
import { Tesseract, type RecogniserStatus } from './understanding/ocr/engine.js';
import { RecognitionCache } from './understanding/ocr/cache.js';
import { FEED_DEFAULTS } from './streams/feed.js';
import { createWorkerLogger } from './log.js';
import { checkHost, type HostChecks, summariseChecks } from './host/checks.js';

export { loadWorkerConfig, WorkerConfigError, WORKER_FLAGS, type WorkerConfig } from './config.js';
export type { GatewaySocket, Dial } from './connection/socket.js';
export type { InventorySnapshot } from './devices/inventory.js';
export { DialError } from './connection/socket.js';
export { checkHost, lacking, summariseChecks, type HostCheck, type HostChecks, type HostBackendPlan } from './host/checks.js';
export { comparePairs, inspect, INSPECT_FORMATS, InspectError, inspectJson, inspectText, pairsText, type InspectFormat } from './understanding/inspect.js';

export interface Worker {
  readonly identity: HostIdentity;
  readonly link: GatewayLink;
  readonly logger: Logger;
  readonly perception: Perception;
  /** Its backends and devices as they are now (for the start banner). */
  describe(): Promise<InventorySnapshot>;
  /** Whether text recognition can run here, and how to install it when not; undefined when it is turned off. */
  textRecognition(): Promise<RecogniserStatus | undefined>;
  /** What this host has and lacks for each backend, as checked at start (the hello carries it). */
  checks(): Promise<HostChecks>;
  /** Resolves on the first welcome from the gateway. */
  registered(): Promise<void>;
  /** Idempotent. Says goodbye to the gateway and closes every backend. */
  stop(): Promise<void>;
}

export interface WorkerOptions {
  version: string;
  /** How to reach the gateway; defaults to a WebSocket to config.gatewayUrl. */
  dial?: Dial;
  logger?: Logger;
  /** Overrides the backends chosen from config (tests). */
  providers?: BackendProvider[];
  /** Overrides the host checks run at start (tests). */
  checks?: () => Promise<HostChecks>;
}

export async function startWorker(config: WorkerConfig, opts: WorkerOptions): Promise<Worker> {
  const dial = opts.dial ?? networkDial(config);
  const identity = await loadHostIdentity({ dataDir: config.dataDir, id: config.hostId, name: config.hostName, version: opts.version });
  const logger = (opts.logger ?? createWorkerLogger(config.logLevel)).child({ hostId: identity.id });
  // The host's checks run beside the backends' start; the hello waits for them.
  const checks = (opts.checks ?? (() => checkHost(config)))().catch((err: unknown): HostChecks => {
    logger.warn({ err: (err as Error).message }, 'the host checks failed; the hello carries none');
    return { host: { os: '', arch: '', root: false }, backends: [], checks: [] };
  });
  void checks.then((c) =>
    logger.info({ lacking: c.checks.filter((k) => k.needed && k.status !== 'ok').map((k) => k.id) }, `host checks: ${summariseChecks(c.checks)}`),
  );
  const inventory = new Inventory(opts.providers ?? createProviders(config, logger));
  const perception = new Perception({ retentionMs: config.frameRetentionMs, budgetBytes: config.frameBudgetBytes, quietMs: config.quietMs }, logger);
  // Memory is written behind to the farm through the gateway link (created below).
  const channel: MemoryChannel = { memory: (msg, timeoutMs) => link.memory(msg, timeoutMs) };
  const sync: MemorySync = new MemorySync(channel, logger.child({ component: 'memory' }));
  const recogniser = config.tesseract === 'none' ? undefined : new RecognitionCache(new Tesseract(config.tesseract, logger.child({ component: 'ocr' })));
  const understanding = new Understanding((localId) => perception.eyesOf(localId), logger, sync, recogniser);
  const actor = new Actor(
    understanding,
    (localId) => {
      const d = inventory.device(localId);
      if (!d) throw new DeviceError('NOT_FOUND', `this host has no device ${localId}`);
      return d;
    },
    (localId) => perception.eyesOf(localId),
    config.quietMs,
    logger.child({ component: 'acting' }),
  );
  const runner = new StepRunner(actor);
  const lanes = new DeviceLanes();
  /** Looks answered HOST_OVERLOADED: counted with the screen reads overdue in the host's strain. */
  let looksOverdue = 0;
  const leases = new LeaseKeeper((localId) => inventory.device(localId), config.deviceOpTimeoutMs, logger);
  // Every leased device keeps an event log the gateway streams to watchers.
  const feeds = new Feeds(
    {
      eyesOf: (localId) => perception.eyesOf(localId),
      leaseOf: (localId) => leases.leaseOf(localId),
      readScreen: (localId, epoch, team) => understanding.current(localId, epoch, team),
    },
    logger.child({ component: 'streams' }),
    { ...FEED_DEFAULTS, maxEvents: config.eventLogEvents, maxAgeMs: config.eventLogMs },
  );
  understanding.onRead = (localId, epoch, read) => feeds.noteScreen(localId, epoch, screenIdentity(read), read.source, read.reading.elements.length);
  actor.seen = {
    action: (localId, epoch, result) => feeds.noteAction(localId, epoch, result),
    escalation: (localId, epoch, e) => feeds.noteEscalation(localId, epoch, e),
  };
  inventory.onDevices = (devices) => {
    perception.watch(devices);
    understanding.watch(devices);
    feeds.watch(devices);
  };
  await inventory.start();
  inventory.leaseOf = (localId) => leases.leaseOf(localId);
  const link = new GatewayLink({
    dial,
    identity,
    inventory,
    commands: async (cmd) => {
      if (cmd.type !== 'call') return leases.handle(cmd);
      leases.assertHeld(cmd.localId, cmd.epoch);
      checkCallParams(cmd.method, cmd.params);
      // Memory is per team: a call without one (an older gateway) shares the default team's.
      const team = cmd.team ?? 'default';
      if (cmd.method === 'screen.read' || cmd.method === 'screen.locate')
        return understanding.call(cmd.localId, cmd.epoch, team, cmd.method, cmd.params, cmd.budgetMs);
      if (cmd.method === 'action.run')
        return lanes.run(cmd.localId, () => actor.act(cmd.localId, cmd.epoch, team, cmd.params as Parameters<Actor['act']>[3]), cmd.budgetMs);
      if (cmd.method === 'screen.look') {
        return look(
          actor.backendOf(cmd.localId),
          cmd.params as Parameters<typeof look>[1],
          () => perception.eyesOf(cmd.localId).store.newestEncoded()?.frame,
          giveUpAfter(cmd.budgetMs, LOOK_GIVE_UP_MS),
        ).catch((err: unknown) => {
          if (err instanceof DeviceError && err.code === 'HOST_OVERLOADED') {
            looksOverdue++;
            logger.warn(
              { localId: cmd.localId, waitedMs: err.details?.waitedMs },
              'a look was not captured in time and the stream had no frame to serve; the caller is told HOST_OVERLOADED',
            );
          }
          throw err;
        });
      }
      if (cmd.method === 'events.read') return feeds.read(cmd.localId, cmd.epoch, team, cmd.params);
      if (cmd.method === 'screen.live') return liveFrame(perception.eyesOf(cmd.localId), actor.backendOf(cmd.localId).screen(), liveRequest(cmd.params));
      if (cmd.method === 'device.permission') {
        const result = await applyPermission(actor.backendOf(cmd.localId), cmd.params as PermissionRequest);
        logger.info(
          { localId: cmd.localId, action: result.action, permission: result.permission, applied: result.applied, skipped: result.skipped ?? [] },
          'permission changed',
        );
        return result;
      }
      if (cmd.method === 'steps.run')
        return lanes.run(cmd.localId, () => runner.run(cmd.localId, cmd.epoch, team, cmd.params as Parameters<StepRunner['run']>[3]), cmd.budgetMs);
      return perception.call(cmd.localId, cmd.epoch, cmd.method, cmd.params);
    },
    backoff: new Backoff(config.reconnectMinMs, config.reconnectMaxMs),
    logger,
    held: () => ({
      ...perception.held(),
      ...understanding.memories.held(),
      memoryBatchesPending: sync.pending,
      ocrCacheEntries: recogniser?.size ?? 0,
      eventLogEvents: feeds.held(),
      ...pageHeld(inventory.pageMemory()),
    }),
    textRecognition: async () => recogniser?.status(),
    checks: async () => (await checks).checks,
    strain: () => ({
      slowReads: understanding.counts.slowReads,
      readsCutShort: understanding.counts.cutShort,
      readsOverdue: understanding.counts.overdue + looksOverdue,
      capturesGivenUp: inventory.capturesGivenUp(),
    }),
  });
  const registered = new Promise<void>((resolve, reject) => {
    link.once('ready', () => resolve());
    link.once('fatal', reject);
  });
  registered.catch(() => undefined); // observed through registered() or the 'fatal' event
  link.start();
  sync.start();
  let stopping: Promise<void> | undefined;
  return {
    identity,
    link,
    logger,
    perception,
    registered: () => registered,
    describe: () => inventory.describe(),
    textRecognition: async () => recogniser?.status(),
    checks: () => checks,
    stop: () =>
      (stopping ??= (async () => {
        // What was learned goes to the farm before the link closes.
        await sync.drain(5000);
        sync.stop();
        await link.stop();
        feeds.close();
        perception.close();
        await inventory.close();
        logger.info('worker stopped');
      })()),
  };
}

function networkDial(config: WorkerConfig): Dial {
  if (!config.gatewayUrl || !config.token) {
    throw new WorkerConfigError(
      'a worker needs the gateway URL and a worker token: --gateway URL --token T (or SIMFLEET_GATEWAY_URL and SIMFLEET_WORKER_TOKEN)',
    );
  }
  return websocketDialer({ gatewayUrl: config.gatewayUrl, token: config.token, maxPayloadBytes: config.wsMaxPayloadBytes });
}

/** The pages' memory as heartbeat fields; none where no backend can read its pages. */
function pageHeld(m: PageMemory | undefined): { pageJsHeapBytes?: number; pageDomNodes?: number; pageEventListeners?: number } {
  return m ? { pageJsHeapBytes: m.jsHeapBytes, pageDomNodes: m.domNodes, pageEventListeners: m.eventListeners } : {};
}
