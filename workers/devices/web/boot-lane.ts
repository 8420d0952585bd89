// Boots a host's web devices, and boots again, with backoff, any that would not come up. Twenty
// pages loading at once on a starved host (a cgroup of 0.8 of a core) all missed their 30 s load
// together, and each stayed broken for good: the farm had a host of dead devices until its worker
// was restarted, though the host could run them one after another (their loads now take turns too:
// page-loads.ts).
import type { Logger } from 'pino';
import { type Cancel, type Clock, systemClock } from '../../clock.js';
import { Backoff } from '../../connection/backoff.js';

export const BOOT_RETRY_MIN_MS = 2000;
export const BOOT_RETRY_MAX_MS = 60_000;

export interface Bootable {
  readonly localId: string;
  /** Opens the device's page; throws when it would not come up. */
  boot(): Promise<void>;
  /** Says the device is broken (for the farm to see) while it waits to be booted again. */
  bootFailed(reason: string): void;
}

interface Attempts {
  /** Bumped by every boot() and by cancel(): a retry whose round has passed does nothing. */
  round: number;
  backoff: Backoff;
  cancelRetry: Cancel | undefined;
  /** The attempt under way: the next waits for it, so one device never builds two pages at once. */
  current: Promise<void>;
}

export interface BootLaneOptions {
  retryMinMs: number;
  retryMaxMs: number;
  /** The retries' timers; the system clock unless a test gives its own. */
  clock?: Clock;
  /** The backoff's jitter (Math.random unless a test fixes it). */
  random?: () => number;
}

export class BootLane {
  private readonly devices = new Map<string, Attempts>();
  private closed = false;
  private readonly clock: Clock;

  constructor(
    private readonly logger: Logger,
    private readonly opts: BootLaneOptions = { retryMinMs: BOOT_RETRY_MIN_MS, retryMaxMs: BOOT_RETRY_MAX_MS },
  ) {
    this.clock = opts.clock ?? systemClock;
  }

  /**
   * Boots the device, then again after each failure until it is up, cancelled or the lane closed.
   * Resolves once the first attempt has settled: true when the device came up.
   */
  boot(device: Bootable): Promise<boolean> {
    const attempts = this.attemptsOf(device.localId);
    attempts.cancelRetry?.();
    attempts.round++;
    attempts.backoff.reset();
    return this.attempt(device, attempts, attempts.round, 1);
  }

  /** Stops retrying this device (its browser went away: a relaunch boots it again). */
  cancel(localId: string): void {
    const attempts = this.devices.get(localId);
    if (!attempts) return;
    attempts.cancelRetry?.();
    attempts.round++;
  }

  close(): void {
    this.closed = true;
    for (const id of this.devices.keys()) this.cancel(id);
  }

  private attemptsOf(localId: string): Attempts {
    let attempts = this.devices.get(localId);
    if (!attempts) {
      const backoff = new Backoff(this.opts.retryMinMs, this.opts.retryMaxMs, this.opts.random);
      attempts = { round: 0, backoff, cancelRetry: undefined, current: Promise.resolve() };
      this.devices.set(localId, attempts);
    }
    return attempts;
  }

  private async attempt(device: Bootable, attempts: Attempts, round: number, n: number): Promise<boolean> {
    const previous = attempts.current;
    let settled!: () => void;
    attempts.current = new Promise((resolve) => (settled = resolve));
    await previous;
    try {
      if (this.closed || attempts.round !== round) return false;
      await device.boot();
      if (n > 1) this.logger.info({ localId: device.localId, attempt: n }, 'web device came up after failing to');
      return true;
    } catch (err) {
      if (this.closed || attempts.round !== round) return false;
      const message = (err as Error).message;
      const inMs = attempts.backoff.next();
      this.logger.error({ localId: device.localId, err: message, attempt: n, retryInMs: inMs }, 'web device would not start; trying again');
      device.bootFailed(`would not start (attempt ${n}, next in ${Math.round(inMs / 1000)} s): ${message}`);
      attempts.cancelRetry = this.clock.timeout(() => void this.attempt(device, attempts, round, n + 1), inMs);
      return false;
    } finally {
      settled();
    }
  }
}
