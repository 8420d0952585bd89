// `simfleet worker --gateway URL --token T`: the per-host agent, dialling out to the gateway.
import { startWorker, type WorkerConfig } from '../../workers/index.js';
import { version } from '../paths.js';
import { shutDownGracefully } from './graceful.js';

export async function runWorker(config: WorkerConfig): Promise<void> {
  const worker = await startWorker(config, { version });
  worker.link.once('fatal', (err) => {
    process.stderr.write(`simfleet worker: ${err.code}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ''}\n`);
    void worker.stop().finally(() => process.exit(2));
  });
  shutDownGracefully(worker.logger, 5000, () => worker.stop());
}
