// The gateway process: open the database, migrate, make sure there is an admin, serve HTTP and
// the worker protocol, sweep for silent hosts. `stop()` is the written shutdown sequence:
//   1. refuse new requests with 503 SHUTTING_DOWN (and /readyz turns 503);
//   2. stop the liveness sweep, the reaper and the placer, waiting for a pass in progress;
//   3. close every worker WebSocket with 1001 SHUTTING_DOWN (workers redial elsewhere or later);
//   4. stop listening and let in-flight requests drain;
//   5. wait for prepares and resets in flight to record their outcome (bounded);
//   6. close the database.
// Past SIMFLEET_SHUTDOWN_TIMEOUT_MS the remaining connections are cut and the sequence completes.
import { MemoryService } from './domain/memory.js';
import { applyMemoryWrite, loadMemory } from './db/repositories/memory.js';
import { hostServesTeam } from './db/repositories/sessions.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.js';
import { sqlState, type Database } from './db/database.js';
import { migrate, readMigrations } from './db/migrate.js';
import { openDatabase } from './db/open.js';
import { HostRegistry } from './domain/hosts.js';
import { startLivenessSweep } from './domain/liveness.js';
import { PauseWatch } from './domain/pauses.js';
import { SessionEvents } from './domain/sessions/events.js';
import { DeviceLifecycle } from './domain/sessions/lifecycle.js';
import { SessionPerception } from './domain/sessions/perception.js';
import { DeviceTaps } from './domain/streams/device-tap.js';
import { Acting } from './domain/flows/acting.js';
import { FlowService } from './domain/flows/service.js';
import { Placer } from './domain/sessions/placer.js';
import { Reaper } from './domain/sessions/reaper.js';
import { SessionService } from './domain/sessions/service.js';
import { LOCAL_WORKER, TokenService } from './domain/tokens.js';
import { buildHttpApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { CommandBus } from './hub/command-bus.js';
import { WorkerHub } from './hub/hub.js';
import { createSocketPair, type MemorySocket } from './hub/memory-socket.js';
import { createLogger } from './log.js';
import { migrationsDir, version } from './paths.js';
import { checkReadiness } from './readiness.js';
import { systemTimers, type Timers } from './timers.js';

/** A host may still write a team's memory this long after its last session of that team ended (writes behind). */
const MEMORY_GRACE_MS = 3600_000;

export interface Gateway {
  /** Empty until the gateway listens. */
  readonly url: string;
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly db: Database;
  readonly hub: WorkerHub;
  readonly sessions: SessionService;
  readonly reaper: Reaper;
  readonly http: FastifyInstance;
  /** Where the admin token lives, and its secret only when this start generated it. */
  readonly admin: { file: string; secret?: string; source: 'env' | 'generated' | 'existing' };
  /** The worker end of an in-memory connection, for a worker in this process. */
  connectLocalWorker(): MemorySocket;
  /** Serves HTTP (done by startGateway itself unless `deferListen`). Idempotent. */
  listen(): Promise<void>;
  /** From now on /readyz answers 200 only once this host has reported all its devices (`simfleet start`'s own worker). */
  awaitDevicesOf(hostId: string): void;
  /** Idempotent; every call returns the same promise. */
  stop(): Promise<void>;
}

export interface GatewayOptions {
  logger?: Logger;
  timers?: Timers;
  /** Listen only when listen() is called: `simfleet start` registers its worker first, so no request finds the farm empty. */
  deferListen?: boolean;
}

export async function startGateway(config: GatewayConfig, opts: GatewayOptions = {}): Promise<Gateway> {
  const timers = opts.timers ?? systemTimers;
  const logger = (opts.logger ?? createLogger(config.logLevel, 'gateway')).child({ gatewayId: config.gatewayId });
  const db = await openDatabase(config, logger);
  try {
    const migrations = await readMigrations(migrationsDir);
    const applied = await migrate(db, migrations);
    if (applied.length > 0) logger.info({ applied, database: db.location }, 'migrations applied');
    const tokens = new TokenService(db);
    const admin = await tokens.bootstrapAdmin(config.adminToken, config.dataDir);
    const sc = config.sessions;

    // Construction order follows the dependencies: the bus reaches workers through the hub,
    // which is built last because the host registry it serves needs the device lifecycle.
    let closing = false;
    let localHost: string | undefined;
    const hubRef: { hub?: WorkerHub } = {};
    const metrics = createMetrics(db, () => hubRef.hub?.connectionCount ?? 0, logger);
    const bus = new CommandBus(db, config.gatewayId, logger, (direction) => metrics.forwardedCommands.inc({ direction }));
    const placerRef: { placer?: Placer } = {};
    const lifecycle = new DeviceLifecycle(
      db,
      bus,
      { origins: config.webOrigins, prepareTimeoutMs: sc.prepareTimeoutMs, resetTimeoutMs: sc.resetTimeoutMs, maxPrepareAttempts: 2 },
      { onDeviceFreed: () => placerRef.placer?.kick(), onQuarantine: () => metrics.quarantines.inc() },
      logger,
    );
    const placer = (placerRef.placer = new Placer(
      db,
      lifecycle,
      {
        agingMs: sc.agingMs,
        fairnessWindowMs: sc.fairnessWindowMs,
        teamMaxSessions: sc.teamMaxSessions,
        intervalMs: sc.placementIntervalMs,
        batch: sc.placementBatch,
      },
      {
        onPlaced: (count, waited) => {
          metrics.placements.inc(count);
          for (const ms of waited) metrics.queueWait.observe(ms / 1000);
        },
      },
      logger,
    ));
    const events = new SessionEvents(db, logger);
    const sessions = new SessionService(
      db,
      placer,
      lifecycle,
      events,
      {
        defaultTtlSeconds: Math.floor(sc.defaultTtlMs / 1000),
        maxTtlMs: sc.maxTtlMs,
        defaultIdleSeconds: Math.floor(sc.defaultIdleMs / 1000),
        defaultWaitSeconds: Math.floor(sc.defaultWaitMs / 1000),
        createWaitMs: sc.createWaitMs,
        agingMs: sc.agingMs,
        teamMaxSessions: sc.teamMaxSessions,
        origins: config.webOrigins,
      },
      logger,
      timers,
    );
    const perception = new SessionPerception(db, sessions, bus, { onAnswer: (method, outcome) => metrics.perceptionAnswers.inc({ method, outcome }) }, logger);
    const flows = new FlowService(db, sessions, logger.child({ component: 'flows' }));
    const acting = new Acting(db, sessions, perception, flows);
    const stuckMs = Math.max(sc.prepareTimeoutMs, sc.resetTimeoutMs) + 30_000;
    const pauses = new PauseWatch(logger, () => metrics.pauses.inc());
    const reaper = new Reaper(
      db,
      lifecycle,
      { intervalMs: sc.reaperIntervalMs, warnMaxMs: sc.expiryWarningMs, stuckMs, pauses, timers },
      { onEnded: (reason) => metrics.sessionsEnded.inc({ reason }) },
      logger,
    );
    const registry = new HostRegistry(db, lifecycle, logger);
    const hub = (hubRef.hub = new WorkerHub(
      registry,
      {
        gatewayId: config.gatewayId,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        hostTimeoutMs: config.hostTimeoutMs,
        helloTimeoutMs: config.helloTimeoutMs,
        pauses,
        onProtocolError: (code) => metrics.protocolErrors.inc({ code }),
        onWorkerReport: (hostId, report) => metrics.setWorkerReport(hostId, report),
        memory: {
          write: async (hostId, msg) => {
            try {
              const outcome = await applyMemoryWrite(db, hostId, msg);
              metrics.memoryWrites.inc({ outcome });
              if (outcome === 'applied') for (const e of msg.escalations) metrics.escalations.inc({ reason: e.reason });
              return outcome !== 'forgotten';
            } catch (err) {
              metrics.memoryWrites.inc({ outcome: /^2[23]/.test(sqlState(err) ?? '') ? 'refused' : 'failed' });
              throw err;
            }
          },
          load: (key) => loadMemory(db, key),
          mayUse: (hostId, team) => hostServesTeam(db, hostId, team, MEMORY_GRACE_MS),
          onRefused: () => metrics.memoryWrites.inc({ outcome: 'refused' }),
        },
      },
      logger,
    ));
    await bus.attach(hub);
    await events.start();
    const http = await buildHttpApp(
      {
        version,
        gatewayId: config.gatewayId,
        startedAt: Date.now(),
        db,
        tokens,
        hub,
        metrics,
        sessions,
        perception,
        flows,
        acting,
        memory: new MemoryService(db, (reason) => metrics.escalations.inc({ reason })),
        events,
        taps: new DeviceTaps(perception, logger.child({ component: 'streams' })),
        logger,
        timers,
        readiness: () => checkReadiness(db, migrations, !closing, logger, localHost),
      },
      {
        logger,
        bodyLimitBytes: config.bodyLimitBytes,
        wsMaxPayloadBytes: config.wsMaxPayloadBytes,
        isClosing: () => closing,
        closeSockets: () => hub.closeAll(Math.max(100, Math.floor(config.shutdownTimeoutMs / 2))),
      },
    );
    const sweep = startLivenessSweep(registry, config.hostTimeoutMs, pauses, logger);
    await placer.start();
    reaper.start();
    let url = '';
    let listening: Promise<void> | undefined;
    const listen = (): Promise<void> =>
      (listening ??= (async () => {
        await http.listen({ port: config.port, host: config.host });
        const address = http.server.address();
        const port = typeof address === 'object' && address ? address.port : config.port;
        url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
        logger.info({ url, database: db.location, kind: db.kind }, 'gateway listening');
      })());
    if (!opts.deferListen) await listen();

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        logger.info('gateway shutting down');
        closing = true;
        pauses.stop();
        await Promise.all([sweep.stop(), reaper.stop(), placer.stop()]);
        const deadline = setTimeout(() => {
          logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown deadline passed; cutting remaining connections');
          http.server.closeAllConnections();
        }, config.shutdownTimeoutMs);
        try {
          await http.close();
        } finally {
          // Prepares and resets still running need the database to record their outcome.
          await Promise.race([lifecycle.drain(), new Promise((r) => setTimeout(r, config.shutdownTimeoutMs / 2).unref())]);
          clearTimeout(deadline);
          await bus.stop();
          await events.stop();
          await db.close();
          logger.info('gateway stopped');
        }
      })());

    return {
      get url() {
        return url;
      },
      config,
      logger,
      db,
      hub,
      sessions,
      reaper,
      http,
      admin,
      connectLocalWorker() {
        const [gatewayEnd, workerEnd] = createSocketPair();
        hub.accept(gatewayEnd, LOCAL_WORKER);
        return workerEnd;
      },
      listen,
      awaitDevicesOf(hostId) {
        localHost = hostId;
      },
      stop,
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
