// The leases this worker holds its devices under, and the fence that keeps a stale session off a
// device: every prepare carries a new, higher epoch; a command under an older epoch than the
// device's is refused with STALE_LEASE. Commands for one device run one at a time, each for at most
// the operation timeout, whether or not the backend heeds it.
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend } from './backend.js';

type Prepare = components['schemas']['GatewayPrepare'];
type Reset = components['schemas']['GatewayReset'];
export type Lease = components['schemas']['WorkerLease'];

export class LeaseKeeper {
  private readonly epochs = new Map<string, { epoch: number; sessionId: string | null }>();
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly lookup: (localId: string) => DeviceBackend | undefined,
    private readonly opTimeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** The lease a device is held under, for the hello and device reports. */
  leaseOf(localId: string): Lease | null {
    const l = this.epochs.get(localId);
    return l?.sessionId ? { epoch: l.epoch, sessionId: l.sessionId } : null;
  }

  /** Throws STALE_LEASE unless a session holds the device under exactly this epoch. */
  assertHeld(localId: string, epoch: number): void {
    const lease = this.epochs.get(localId);
    if (!lease?.sessionId || lease.epoch !== epoch) {
      throw new DeviceError(
        'STALE_LEASE',
        `device ${localId} is not held under epoch ${epoch}${lease ? ` (it is at epoch ${lease.epoch}${lease.sessionId ? '' : ', unleased'})` : ''}`,
      );
    }
  }

  handle(cmd: Prepare | Reset): Promise<void> {
    const device = this.lookup(cmd.localId);
    if (!device) return Promise.reject(new DeviceError('NOT_FOUND', `this host has no device ${cmd.localId}`));
    const previous = this.chains.get(cmd.localId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.run(device, cmd));
    this.chains.set(cmd.localId, next);
    return next;
  }

  private async run(device: DeviceBackend, cmd: Prepare | Reset): Promise<void> {
    const current = this.epochs.get(cmd.localId);
    const stale = cmd.type === 'prepare' ? current && cmd.epoch <= current.epoch : current && cmd.epoch < current.epoch;
    if (stale) {
      throw new DeviceError('STALE_LEASE', `${cmd.type} under epoch ${cmd.epoch} refused: device ${cmd.localId} is at epoch ${current!.epoch}`);
    }
    // Recorded before the work starts, so a report sent meanwhile already names the new lease.
    this.epochs.set(cmd.localId, { epoch: cmd.epoch, sessionId: cmd.type === 'prepare' ? cmd.sessionId : null });
    const log = this.logger.child({ localId: cmd.localId, epoch: cmd.epoch, ...(cmd.type === 'prepare' ? { sessionId: cmd.sessionId } : {}) });
    const signal = AbortSignal.timeout(this.opTimeoutMs);
    const started = Date.now();
    try {
      const op = cmd.type === 'prepare' ? device.prepare(cmd.app, { signal, origins: cmd.origins }) : device.reset(signal);
      await untilAborted(op, signal);
    } catch (err) {
      if (err instanceof DeviceError) throw err;
      const timedOut = signal.aborted;
      throw new DeviceError(
        timedOut ? 'COMMAND_TIMEOUT' : 'DEVICE_FAILED',
        timedOut ? `${cmd.type} took longer than ${this.opTimeoutMs} ms` : `${cmd.type} failed: ${(err as Error).message}`,
      );
    }
    log.info({ ms: Date.now() - started }, `device ${cmd.type} done`);
  }
}

/**
 * The operation, or a rejection once the signal aborts, whichever comes first. A backend that does
 * not heed the signal (a browser call that never returns) must not hold the device's queue forever:
 * every later prepare and reset waits behind it, and the device never comes back.
 */
function untilAborted(op: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', (onAbort = () => reject(signal.reason as Error)), { once: true }));
  op.catch(() => undefined); // a late failure of an abandoned operation is not unhandled
  return Promise.race([op, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}
