// Periodically takes silent hosts offline. Every gateway runs it; the UPDATE is idempotent, so
// several gateways sweeping one database agree without coordinating.
import type { Logger } from 'pino';
import type { HostRegistry } from './hosts.js';
import { judgement, PauseOvertook, type PauseClock } from './pauses.js';

export function startLivenessSweep(registry: HostRegistry, hostTimeoutMs: number, pauses: PauseClock, logger: Logger): { stop(): Promise<void> } {
  // A fifth of the timeout keeps the worst-case detection within 1.2 × the timeout.
  const everyMs = Math.max(50, Math.min(Math.floor(hostTimeoutMs / 5), 5000));
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    // This gateway's own pauses of the last two timeouts are allowed to the hosts last seen before
    // them (pause-allowance.ts); since an older pause every host has had more than a timeout to be heard.
    // A pause that falls while the sweep waits on the database voids it (pauses.ts, judgement).
    running = registry
      .sweep(hostTimeoutMs, judgement(pauses, 2 * hostTimeoutMs))
      .catch((err: unknown) => {
        if (err instanceof PauseOvertook)
          logger.info({ pausedMs: err.pausedMs }, 'this gateway was paused during a liveness sweep; hosts are judged again at the next one');
        else logger.warn({ err }, 'liveness sweep failed; will retry');
      })
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
