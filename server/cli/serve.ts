// `simfleet gateway` and `simfleet start`: run until a signal, then shut down in order.
// close-with-grace (graceful.ts) gives the sequence a deadline and exits at once on a second signal.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadWorkerConfig, startWorker, summariseChecks, type InventorySnapshot, type Worker } from '../../workers/index.js';
import type { GatewayConfig } from '../config.js';
import { startGateway, type Gateway } from '../gateway.js';
import { version } from '../paths.js';
import { banner } from './banner.js';
import { shutDownGracefully } from './graceful.js';

export async function runGateway(config: GatewayConfig): Promise<void> {
  const gateway = await startGateway(config);
  process.stdout.write(banner(facts(gateway)));
  onShutdown(config, gateway, async () => gateway.stop());
}

/**
 * The laptop default: gateway, an in-process worker over the in-memory protocol, embedded Postgres.
 * The worker registers before the gateway listens, so the first request finds its host (a backend
 * still starting queues a session rather than refusing it); the banner waits for its devices.
 */
export async function runStart(config: GatewayConfig, env: NodeJS.ProcessEnv, flags: Record<string, string | undefined>): Promise<void> {
  const gateway = await startGateway(config, { deferListen: true });
  const workerConfig = loadWorkerConfig(env, { ...flags, 'data-dir': config.dataDir });
  let worker: Worker | undefined;
  try {
    worker = await startWorker(workerConfig, {
      version,
      dial: async () => gateway.connectLocalWorker(),
    });
    gateway.awaitDevicesOf(worker.identity.id);
    await worker.registered();
    await gateway.listen();
  } catch (err) {
    await worker?.stop();
    await gateway.stop();
    throw err;
  }
  const started = worker;
  onShutdown(config, gateway, async () => {
    await started.stop();
    await gateway.stop();
  });
  const inventory = await settled(started);
  const local = {
    host: started.identity,
    inventory,
    textRecognition: await started.textRecognition(),
    checks: summariseChecks((await started.checks()).checks),
  };
  process.stdout.write(banner({ ...facts(gateway), local }));
}

/** The worker's backends and devices once none is starting any more, or as they are after BANNER_WAIT_MS. */
async function settled(worker: Worker): Promise<InventorySnapshot> {
  const until = Date.now() + BANNER_WAIT_MS;
  for (;;) {
    const now = await worker.describe();
    const starting = now.backends.some((b) => b.starting) || now.devices.some((d) => d.health === 'broken' && d.reason === 'starting');
    if (!starting || Date.now() > until) return now;
    await sleep(200);
  }
}
const BANNER_WAIT_MS = 60_000;

function facts(gateway: Gateway) {
  return { version, url: gateway.url, database: { kind: gateway.db.kind, location: gateway.db.location }, admin: gateway.admin };
}

function onShutdown(config: GatewayConfig, gateway: Gateway, stop: () => Promise<void>): void {
  shutDownGracefully(gateway.logger, config.shutdownTimeoutMs + 2000, stop);
}
