// `simfleet worker --gateway URL --token T`: the per-host agent, dialling out to the gateway.
import closeWithGrace from 'close-with-grace';
import { startWorker, type WorkerConfig } from '../../workers/index.js';
import { version } from '../paths.js';

export async function runWorker(config: WorkerConfig): Promise<void> {
  const worker = await startWorker(config, { version });
  worker.link.once('fatal', (err) => {
    process.stderr.write(`simfleet worker: ${err.code}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ''}\n`);
    void worker.stop().finally(() => process.exit(2));
  });
  closeWithGrace({ delay: 5000, logger: { error: (m: unknown) => worker.logger.error({ detail: m }, 'forced shutdown') } }, async ({ signal, err }) => {
    if (err) worker.logger.error({ err }, 'fatal error; shutting down');
    else worker.logger.info({ signal }, 'signal received; shutting down');
    await worker.stop();
  });
}
