// The worker connections this gateway holds, by host. One live connection per host: a second
// worker claiming a host id that still answers pings is refused; one that no longer answers is
// replaced (its TCP connection was half-open).
import type { Logger } from 'pino';
import type { ErrorCode } from '../../openapi/contract.js';
import type { HostRegistry } from '../domain/hosts.js';
import type { Principal } from '../domain/tokens.js';
import type { WorkerSocket } from './socket.js';
import { WorkerLink, type LinkOwner, type LinkTimings, type MemoryHandler, type WorkerReport } from './worker-link.js';

export interface HubOptions extends LinkTimings {
  gatewayId: string;
  onProtocolError?: (code: ErrorCode) => void;
  /** A worker's heartbeat report (its memory, what its stores hold); undefined when it is gone. */
  onWorkerReport?: (hostId: string, report: WorkerReport | undefined) => void;
  /** Where workers' memory writes and loads go (Postgres, through the gateway). */
  memory?: MemoryHandler;
}

export class WorkerHub implements LinkOwner {
  private readonly byHost = new Map<string, WorkerLink>();
  private readonly open = new Set<WorkerLink>();
  private accepting = true;

  constructor(
    private readonly registry: HostRegistry,
    private readonly opts: HubOptions,
    private readonly logger: Logger,
  ) {}

  /** Takes over a freshly upgraded (or in-memory) socket. */
  accept(socket: WorkerSocket, principal: Principal): WorkerLink {
    const link = new WorkerLink(socket, principal, this.registry, this, this.opts.gatewayId, this.opts, this.logger);
    this.open.add(link);
    void link.closed.then(() => this.open.delete(link));
    if (!this.accepting) link.fail('SHUTTING_DOWN');
    return link;
  }

  get memory(): MemoryHandler | undefined {
    return this.opts.memory;
  }

  async claim(link: WorkerLink): Promise<'ok' | 'in-use'> {
    const hostId = link.hostId!;
    const existing = this.byHost.get(hostId);
    if (existing && existing !== link) {
      const pingTimeoutMs = Math.min(2000, this.opts.hostTimeoutMs / 2);
      if (await existing.isAlive(pingTimeoutMs)) return 'in-use';
      this.logger.warn({ hostId }, 'replacing an unresponsive connection for this host');
      existing.fail('HOST_REPLACED');
      existing.terminate();
    }
    const current = this.byHost.get(hostId);
    if (current && current !== link && current !== existing) return 'in-use'; // another claim won meanwhile
    this.byHost.set(hostId, link);
    return 'ok';
  }

  release(link: WorkerLink): void {
    if (link.hostId && this.byHost.get(link.hostId) === link) {
      this.byHost.delete(link.hostId);
      this.opts.onWorkerReport?.(link.hostId, undefined);
    }
  }

  /** The registered connection for a host, if this gateway holds it. */
  linkFor(hostId: string): WorkerLink | undefined {
    const link = this.byHost.get(hostId);
    return link?.registered ? link : undefined;
  }

  owns(link: WorkerLink): boolean {
    return link.hostId !== undefined && this.byHost.get(link.hostId) === link;
  }

  onProtocolError(code: ErrorCode): void {
    this.opts.onProtocolError?.(code);
  }

  onWorkerReport(hostId: string, report: WorkerReport | undefined): void {
    this.opts.onWorkerReport?.(hostId, report);
  }

  get connectionCount(): number {
    return this.open.size;
  }

  connectedHosts(): string[] {
    return [...this.byHost.values()].filter((l) => l.registered).map((l) => l.hostId!);
  }

  /** Closes every connection with 1001 SHUTTING_DOWN and waits (bounded) for them to finish. */
  async closeAll(timeoutMs: number): Promise<void> {
    this.accepting = false;
    const links = [...this.open];
    for (const link of links) link.fail('SHUTTING_DOWN');
    const all = Promise.all(links.map((l) => l.closed));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    if ((await Promise.race([all, late])) === 'late') {
      this.logger.warn({ open: this.open.size }, 'worker connections did not close in time; terminating');
      for (const link of this.open) link.terminate();
      await Promise.race([all, new Promise((r) => setTimeout(r, 500))]);
    }
    clearTimeout(timer);
  }
}
