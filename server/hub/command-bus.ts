// Commands for a host's worker, from any gateway: sent on the local connection when this gateway
// holds it, otherwise forwarded over Postgres NOTIFY to the gateway that does (hosts.gateway_id)
// and answered the same way. NOTIFY payloads are small (< 8 kB), which commands are.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import * as hosts from '../db/repositories/hosts.js';
import { notify } from '../db/repositories/notify.js';
import type { DeviceCommands, PrepareCommand, ResetCommand } from '../domain/sessions/commands.js';
import { ApiError } from '../errors.js';
import type { ErrorCode } from '../../openapi/contract.js';
import type { WorkerHub } from './hub.js';
import type { WorkerCommand } from './worker-link.js';

interface Forward {
  kind: 'cmd';
  reqId: string;
  replyTo: string;
  hostId: string;
  command: WorkerCommand;
  timeoutMs: number;
}

interface Reply {
  kind: 'reply';
  reqId: string;
  ok: boolean;
  error?: { code: ErrorCode; message: string; hint: string };
}

export const gatewayChannel = (gatewayId: string): string => `sf_gw_${gatewayId.replaceAll('-', '_')}`;

export class CommandBus implements DeviceCommands {
  private hub: WorkerHub | undefined;
  private readonly waiting = new Map<string, { resolve(): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private unlisten: (() => Promise<void>) | undefined;
  private readonly channel: string;

  constructor(
    private readonly db: Database,
    private readonly gatewayId: string,
    private readonly logger: Logger,
    private readonly onForward: (kind: 'sent' | 'served') => void = () => undefined,
  ) {
    this.channel = gatewayChannel(gatewayId);
  }

  async attach(hub: WorkerHub): Promise<void> {
    this.hub = hub;
    this.unlisten = await this.db.listen(this.channel, (payload) => void this.onNotice(payload));
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new ApiError('SHUTTING_DOWN'));
    }
    this.waiting.clear();
  }

  prepare(hostId: string, cmd: PrepareCommand, timeoutMs: number): Promise<void> {
    return this.send(hostId, { type: 'prepare', ...cmd }, timeoutMs);
  }

  reset(hostId: string, cmd: ResetCommand, timeoutMs: number): Promise<void> {
    return this.send(hostId, { type: 'reset', ...cmd }, timeoutMs);
  }

  private async send(hostId: string, command: WorkerCommand, timeoutMs: number): Promise<void> {
    const link = this.hub?.linkFor(hostId);
    if (link) return link.request(command, timeoutMs);
    const host = await hosts.getHost(this.db, hostId);
    if (!host || host.state !== 'online' || !host.gateway_id || host.gateway_id === this.gatewayId) {
      throw new ApiError('HOST_UNREACHABLE', { message: `host ${hostId} is not connected to any gateway`, details: { hostId, state: host?.state ?? 'unknown' } });
    }
    const reqId = randomUUID();
    const answered = new Promise<void>((resolve, reject) => {
      // The owner applies the same timeout; the margin covers the two NOTIFY hops.
      const timer = setTimeout(() => {
        this.waiting.delete(reqId);
        reject(new ApiError('COMMAND_TIMEOUT', { message: `no answer from host ${hostId} through gateway ${host.gateway_id} within ${timeoutMs} ms` }));
      }, timeoutMs + 2000);
      this.waiting.set(reqId, { resolve, reject, timer });
    });
    const forward: Forward = { kind: 'cmd', reqId, replyTo: this.channel, hostId, command, timeoutMs };
    await notify(this.db, gatewayChannel(host.gateway_id), JSON.stringify(forward));
    this.onForward('sent');
    return answered;
  }

  private async onNotice(payload: string): Promise<void> {
    let msg: Forward | Reply;
    try {
      msg = JSON.parse(payload) as Forward | Reply;
    } catch {
      this.logger.warn({ payload }, 'unreadable gateway notification');
      return;
    }
    if (msg.kind === 'reply') {
      const w = this.waiting.get(msg.reqId);
      if (!w) return;
      this.waiting.delete(msg.reqId);
      clearTimeout(w.timer);
      if (msg.ok) w.resolve();
      else w.reject(new ApiError(msg.error?.code ?? 'INTERNAL', { message: msg.error?.message ?? 'forwarded command failed', ...(msg.error?.hint ? { hint: msg.error.hint } : {}) }));
      return;
    }
    this.onForward('served');
    const reply: Reply = { kind: 'reply', reqId: msg.reqId, ok: true };
    try {
      const link = this.hub?.linkFor(msg.hostId);
      if (!link) throw new ApiError('HOST_UNREACHABLE', { message: `host ${msg.hostId} is no longer connected to gateway ${this.gatewayId}` });
      await link.request(msg.command, msg.timeoutMs);
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError('INTERNAL', { cause: err });
      Object.assign(reply, { ok: false, error: { code: e.code, message: e.message, hint: e.hint } });
    }
    await notify(this.db, msg.replyTo, JSON.stringify(reply)).catch((err: unknown) => this.logger.warn({ err }, 'could not answer a forwarded command'));
  }
}
