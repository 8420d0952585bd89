// `simfleet gateway` and `simfleet start`: run until a signal, then shut down in order.
// close-with-grace (graceful.ts) gives the sequence a deadline and exits at once on a second signal.
import { loadWorkerConfig, startWorker } from '../../workers/index.js';
import type { GatewayConfig } from '../config.js';
import { startGateway, type Gateway } from '../gateway.js';
import { version } from '../paths.js';
import { shutDownGracefully } from './graceful.js';

export async function runGateway(config: GatewayConfig): Promise<void> {
  const gateway = await startGateway(config);
  announceAdmin(gateway, false);
  onShutdown(config, gateway, async () => gateway.stop());
}

/** The laptop default: gateway, an in-process worker over the in-memory protocol, embedded Postgres. */
export async function runStart(config: GatewayConfig, env: NodeJS.ProcessEnv, flags: Record<string, string | undefined>): Promise<void> {
  const gateway = await startGateway(config);
  const workerConfig = loadWorkerConfig(env, { ...flags, 'data-dir': config.dataDir });
  let worker;
  try {
    worker = await startWorker(workerConfig, {
      version,
      dial: async () => gateway.connectLocalWorker(),
    });
    await worker.registered();
  } catch (err) {
    await gateway.stop();
    throw err;
  }
  const started = worker;
  announceAdmin(gateway, true);
  process.stdout.write(`  local host: ${started.identity.id} (${started.identity.name})\n\n`);
  onShutdown(config, gateway, async () => {
    await started.stop();
    await gateway.stop();
  });
}

function announceAdmin(gateway: Gateway, laptop: boolean): void {
  const lines = [``, `simfleet ${version} is serving at ${gateway.url} (${gateway.db.kind} database: ${gateway.db.location})`];
  if (gateway.admin.secret) {
    lines.push(`  admin token (shown once, also saved to ${gateway.admin.file}, mode 0600):`, `    ${gateway.admin.secret}`);
  } else if (gateway.admin.source === 'env') {
    lines.push('  admin token: the one in SIMFLEET_ADMIN_TOKEN');
  } else {
    lines.push(`  admin token: in ${gateway.admin.file} (written when this farm first started)`);
  }
  if (laptop) lines.push(`  try: curl -H "Authorization: Bearer $(cat ${gateway.admin.file})" ${gateway.url}/v1/hosts`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function onShutdown(config: GatewayConfig, gateway: Gateway, stop: () => Promise<void>): void {
  shutDownGracefully(gateway.logger, config.shutdownTimeoutMs + 2000, stop);
}
