// The graceful shutdown both processes share: close-with-grace on the stop signals and fatal errors,
// except SIGUSR2. Node gives SIGUSR2 to its diagnostics (--heapsnapshot-signal and
// --report-on-signal are documented with it), and close-with-grace counts it as a stop signal: a heap
// snapshot taken to find a leak in a soak also shut the worker down, with its devices and sessions.
import closeWithGrace from 'close-with-grace';
import type { Logger } from 'pino';

const DIAGNOSTIC_SIGNAL = 'SIGUSR2';

export function shutDownGracefully(logger: Logger, delayMs: number, stop: () => Promise<void>): void {
  // A listener of our own: without any, SIGUSR2 would end the process at once (the default action).
  process.on(DIAGNOSTIC_SIGNAL, () => logger.info({ signal: DIAGNOSTIC_SIGNAL }, 'signal left to Node diagnostics (heap snapshot, report); not shutting down'));
  closeWithGrace(
    { delay: delayMs, skip: [DIAGNOSTIC_SIGNAL], logger: { error: (m: unknown) => logger.error({ detail: m }, 'forced shutdown') } },
    async ({ signal, err }) => {
      if (err) logger.error({ err }, 'fatal error; shutting down');
      else logger.info({ signal }, 'signal received; shutting down');
      await stop();
    },
  );
}
