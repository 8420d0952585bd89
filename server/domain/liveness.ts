// Periodically takes silent hosts offline. Every gateway runs it; the UPDATE is idempotent, so
// several gateways sweeping one database agree without coordinating.
import type { Logger } from 'pino';
import type { HostRegistry } from './hosts.js';
import type { PauseClock } from './pauses.js';

export function startLivenessSweep(registry: HostRegistry, hostTimeoutMs: number, pauses: PauseClock, logger: Logger): { stop(): Promise<void> } {
  // A fifth of the timeout keeps the worst-case detection within 1.2 × the timeout.
  const everyMs = Math.max(50, Math.min(Math.floor(hostTimeoutMs / 5), 5000));
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    // This gateway's own pauses of the last two timeouts are allowed to the hosts last seen before
    // them (pause-allowance.ts); since an older pause every host has had more than a timeout to be heard.
    running = registry
      .sweep(hostTimeoutMs, pauses.pausesEndedAfter(Date.now() - 2 * hostTimeoutMs))
      .catch((err: unknown) => logger.warn({ err }, 'liveness sweep failed; will retry'))
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
