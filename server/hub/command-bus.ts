// Commands for a host's worker, from any gateway: sent on the local connection when this gateway
// holds it, otherwise forwarded over Postgres NOTIFY to the gateway that does (hosts.gateway_id)
// and answered the same way. A NOTIFY payload must stay under 8000 bytes: commands are small, but
// a call's answer may not be, so long replies travel as numbered base64 parts and are reassembled.
import { type Cancel, every, systemTimers, type Timers } from '../timers.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import * as hosts from '../db/repositories/hosts.js';
import { notify } from '../db/repositories/notify.js';
import { throughOutage } from '../db/outage.js';
import type { CallCommand, DeviceCommands, PrepareCommand, ResetCommand } from '../domain/sessions/commands.js';
import { ApiError } from '../errors.js';
import type { ErrorCode } from '../../openapi/contract.js';
import type { WorkerHub } from './hub.js';
import type { CommandValue, WorkerCommand } from './worker-link.js';

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
  value?: Record<string, unknown>;
  error?: { code: ErrorCode; message: string; hint: string; details?: Record<string, unknown> };
}

/** One piece of a reply too long for a single notification. */
interface ReplyPart {
  kind: 'part';
  reqId: string;
  index: number;
  total: number;
  data: string;
}

const PART_BYTES = 5400; // base64 of this, plus the envelope, stays well under the 8000-byte limit
const MAX_PARTS = 200; // about 1 MB: larger answers are refused rather than flooding the channel

interface Waiting {
  /** What was asked, to ask again when this gateway's listener may have missed the answer. */
  forward?: Forward;
  channel?: string;
  askedAt?: number;
  resolve(value: CommandValue): void;
  reject(e: Error): void;
  cancelTimer: Cancel;
  parts?: string[];
  received?: number;
}

export const gatewayChannel = (gatewayId: string): string => `sf_gw_${gatewayId.replaceAll('-', '_')}`;

/** Answers kept for a forward asked again (its first answer may have been lost): the last few hundred. */
const ANSWERS_KEPT = 500;
/** A forward unanswered this long is asked again (a no-op where the owner is still at work on it). */
const REASK_MS = 5000;

export class CommandBus implements DeviceCommands {
  private hub: WorkerHub | undefined;
  private readonly waiting = new Map<string, Waiting>();
  /** Forwards being carried out here, and the answers given lately, by request id. */
  private readonly serving = new Set<string>();
  private readonly answers = new Map<string, Reply>();
  private stopReasking: Cancel | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly channel: string;

  constructor(
    private readonly db: Database,
    private readonly gatewayId: string,
    private readonly logger: Logger,
    private readonly onForward: (kind: 'sent' | 'served') => void = () => undefined,
    private readonly timers: Timers = systemTimers,
  ) {
    this.channel = gatewayChannel(gatewayId);
  }

  async attach(hub: WorkerHub): Promise<void> {
    this.hub = hub;
    this.unlisten = await this.db.listen(this.channel, (payload) => void this.onNotice(payload));
    // Notifications sent while the listener was reconnecting are gone: an answer among them would
    // leave a prepare waiting out its whole timeout. Ask again; the owner answers a repeat from what
    // it kept, or when the work finishes, and never runs a command twice.
    this.db.onReconnect(() => void this.askAgain(0));
    // The owner's listener may have been the one reconnecting when we asked: ask again, now and then.
    this.stopReasking = every(this.timers, REASK_MS, () => void this.askAgain(REASK_MS));
  }

  private async askAgain(olderThanMs: number): Promise<void> {
    const now = this.timers.wall();
    for (const w of this.waiting.values()) {
      if (!w.forward || !w.channel || now - (w.askedAt ?? now) < olderThanMs) continue;
      w.askedAt = now;
      await notify(this.db, w.channel, JSON.stringify(w.forward)).catch((err: unknown) => this.logger.warn({ err }, 'could not ask a forwarded command again'));
    }
  }

  async stop(): Promise<void> {
    this.stopReasking?.();
    await this.unlisten?.();
    for (const [, w] of this.waiting) {
      w.cancelTimer();
      w.reject(new ApiError('SHUTTING_DOWN'));
    }
    this.waiting.clear();
  }

  async prepare(hostId: string, cmd: PrepareCommand, timeoutMs: number): Promise<void> {
    await this.send(hostId, { type: 'prepare', ...cmd }, timeoutMs);
  }

  async reset(hostId: string, cmd: ResetCommand, timeoutMs: number): Promise<void> {
    await this.send(hostId, { type: 'reset', ...cmd }, timeoutMs);
  }

  async call(hostId: string, cmd: CallCommand, timeoutMs: number): Promise<Record<string, unknown>> {
    const value = await this.send(hostId, { type: 'call', ...cmd }, timeoutMs);
    if (!value) throw new ApiError('INTERNAL', { message: `host ${hostId} answered ${cmd.method} without a value` });
    return value;
  }

  private async send(hostId: string, command: WorkerCommand, timeoutMs: number): Promise<CommandValue> {
    const link = this.hub?.linkFor(hostId);
    if (link) return link.request(command, timeoutMs);
    // Which gateway holds the host is read through an outage: a restart of Postgres delays the command, it does not fail it.
    const host = await throughOutage('finding the gateway of a host', () => hosts.getHost(this.db, hostId), { withinMs: timeoutMs, logger: this.logger });
    if (host?.state !== 'online' || !host.gateway_id || host.gateway_id === this.gatewayId) {
      throw new ApiError('HOST_UNREACHABLE', {
        message: `host ${hostId} is not connected to any gateway`,
        details: { hostId, state: host?.state ?? 'unknown' },
      });
    }
    const reqId = randomUUID();
    const answered = new Promise<CommandValue>((resolve, reject) => {
      // The owner applies the same timeout; the margin covers the two NOTIFY hops.
      const cancelTimer = this.timers.timeout(() => {
        this.waiting.delete(reqId);
        reject(new ApiError('COMMAND_TIMEOUT', { message: `no answer from host ${hostId} through gateway ${host.gateway_id} within ${timeoutMs} ms` }));
      }, timeoutMs + 2000);
      this.waiting.set(reqId, { resolve, reject, cancelTimer });
    });
    // Heard here so that a timeout while the send below is still retrying is never unhandled; the
    // caller, once `answered` is returned, still sees the rejection.
    answered.catch(() => undefined);
    const forward: Forward = { kind: 'cmd', reqId, replyTo: this.channel, hostId, command, timeoutMs };
    const channel = gatewayChannel(host.gateway_id);
    const w = Object.assign(this.waiting.get(reqId)!, { forward, channel, askedAt: this.timers.wall() });
    // The owner runs a forward asked twice only once, so a send whose acknowledgement was lost in
    // an outage may be sent again. If it cannot be sent at all, nobody will ever wait on `answered`:
    // its timer must not reject it later, unheard (an unhandled rejection ends the gateway).
    try {
      await throughOutage('a forwarded command', () => notify(this.db, channel, JSON.stringify(forward)), { withinMs: timeoutMs, logger: this.logger });
    } catch (err) {
      w.cancelTimer();
      this.waiting.delete(reqId);
      throw err;
    }
    this.onForward('sent');
    return answered;
  }

  private async onNotice(payload: string): Promise<void> {
    let msg: Forward | Reply | ReplyPart;
    try {
      msg = JSON.parse(payload) as Forward | Reply | ReplyPart;
    } catch {
      this.logger.warn({ payload: payload.slice(0, 200) }, 'unreadable gateway notification');
      return;
    }
    if (msg.kind === 'reply') return this.onReply(msg);
    if (msg.kind === 'part') return this.onPart(msg);
    return this.serve(msg);
  }

  private onReply(msg: Reply): void {
    const w = this.waiting.get(msg.reqId);
    if (!w) return; // timed out already
    this.waiting.delete(msg.reqId);
    w.cancelTimer();
    if (msg.ok) w.resolve(msg.value);
    else
      w.reject(
        new ApiError(msg.error?.code ?? 'INTERNAL', {
          message: msg.error?.message ?? 'forwarded command failed',
          ...(msg.error?.hint ? { hint: msg.error.hint } : {}),
          ...(msg.error?.details ? { details: msg.error.details } : {}),
        }),
      );
  }

  private onPart(part: ReplyPart): void {
    const w = this.waiting.get(part.reqId);
    if (!w || part.total > MAX_PARTS || part.index >= part.total) return;
    w.parts ??= new Array<string>(part.total);
    if (w.parts[part.index] === undefined) w.received = (w.received ?? 0) + 1;
    w.parts[part.index] = part.data;
    if (w.received !== part.total) return;
    // Notifications from different connections may arrive out of order; the index puts them back.
    const json = Buffer.concat(w.parts.map((p) => Buffer.from(p, 'base64'))).toString('utf8');
    try {
      this.onReply(JSON.parse(json) as Reply);
    } catch {
      this.waiting.delete(part.reqId);
      w.cancelTimer();
      w.reject(new ApiError('INTERNAL', { message: 'a forwarded reply arrived garbled' }));
    }
  }

  private async serve(msg: Forward): Promise<void> {
    const kept = this.answers.get(msg.reqId);
    if (kept) return this.deliver(msg, kept); // asked again: the first answer may have been lost
    if (this.serving.has(msg.reqId)) return; // asked again while still at work: the answer will come
    this.serving.add(msg.reqId);
    this.onForward('served');
    const reply: Reply = { kind: 'reply', reqId: msg.reqId, ok: true };
    try {
      const link = this.hub?.linkFor(msg.hostId);
      if (!link) throw new ApiError('HOST_UNREACHABLE', { message: `host ${msg.hostId} is no longer connected to gateway ${this.gatewayId}` });
      const value = await link.request(msg.command, msg.timeoutMs);
      if (value) reply.value = value;
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError('INTERNAL', { cause: err });
      Object.assign(reply, { ok: false, error: { code: e.code, message: e.message, hint: e.hint, ...(e.details ? { details: e.details } : {}) } });
    }
    this.serving.delete(msg.reqId);
    this.answers.set(msg.reqId, reply);
    if (this.answers.size > ANSWERS_KEPT) this.answers.delete(this.answers.keys().next().value!);
    await this.deliver(msg, reply);
  }

  /** The host did the work; through a database outage the answer is retried for as long as the asker listens. */
  private async deliver(msg: Forward, reply: Reply): Promise<void> {
    await throughOutage('a forwarded command answer', () => this.answer(msg.replyTo, reply), { withinMs: msg.timeoutMs, logger: this.logger }).catch(
      (err: unknown) => this.logger.warn({ err }, 'could not answer a forwarded command'),
    );
  }

  private async answer(channel: string, reply: Reply): Promise<void> {
    const json = JSON.stringify(reply);
    const bytes = Buffer.from(json, 'utf8');
    if (bytes.length <= PART_BYTES) return notify(this.db, channel, json);
    const total = Math.ceil(bytes.length / PART_BYTES);
    if (total > MAX_PARTS) {
      const error = {
        code: 'INTERNAL' as const,
        message: `the answer is ${bytes.length} bytes, more than a forwarded reply may carry`,
        hint: 'ask the gateway that holds the host directly',
      };
      return notify(this.db, channel, JSON.stringify({ kind: 'reply', reqId: reply.reqId, ok: false, error } satisfies Reply));
    }
    for (let index = 0; index < total; index++) {
      const data = bytes.subarray(index * PART_BYTES, (index + 1) * PART_BYTES).toString('base64');
      await notify(this.db, channel, JSON.stringify({ kind: 'part', reqId: reply.reqId, index, total, data } satisfies ReplyPart));
    }
  }
}
