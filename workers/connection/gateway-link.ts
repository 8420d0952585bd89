// The worker's side of the gateway protocol: dial, hello, heartbeats, device reports, and redial
// with backoff whenever the connection is lost. The worker keeps its devices while it redials;
// the gateway decides what a long silence means for them.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { PROTOCOL_VERSION, describeValidationError, schemaValidator, type GatewayMessage, type Schemas, type WorkerMessage } from '../../openapi/contract.js';
import type { Inventory } from '../devices/inventory.js';
import type { HostIdentity } from '../host/identity.js';
import type { Backoff } from './backoff.js';
import { DialError, OPEN, type Dial, type GatewaySocket } from './socket.js';
import { storableDeep } from '../text/clip.js';

const isGatewayMessage = schemaValidator<GatewayMessage>('GatewayMessage');

/** A heartbeat timer this late means the process was stopped, not that the event loop was busy. */
const PAUSE_MS = 250;

/** Close reasons after which redialling cannot help. */
const FATAL_CLOSE_REASONS = new Set(['PROTOCOL_VERSION_MISMATCH']);

/** Carries out a gateway command or call; throws a DeviceError whose code is answered to the gateway. */
// biome-ignore lint/suspicious/noConfusingVoidType: a command without a result (prepare, reset) resolves to nothing
export type CommandHandler = (cmd: Schemas['GatewayPrepare'] | Schemas['GatewayReset'] | Schemas['GatewayCall']) => Promise<Record<string, unknown> | void>;

export interface GatewayLinkOptions {
  dial: Dial;
  commands: CommandHandler;
  identity: HostIdentity;
  inventory: Inventory;
  backoff: Backoff;
  logger: Logger;
  /** What the worker's stores hold now, sent with every heartbeat. */
  held?: () => Schemas['WorkerHoldings'];
  /** Signs of a host that cannot keep up (counted since start), sent with every heartbeat. */
  strain?: () => Schemas['WorkerStrain'];
  /** Whether text recognition can run on this host, said once in the hello; undefined when it is turned off. */
  textRecognition?: () => Promise<Schemas['TextRecognitionStatus'] | undefined>;
  /** What the host has and lacks for each backend, checked at start and said in the hello. */
  checks?: () => Promise<Schemas['HostCheck'][]>;
}

export interface GatewayLinkEvents {
  ready: [welcome: Schemas['GatewayWelcome']];
  disconnected: [info: { code: number; reason: string }];
  fatal: [err: DialError];
}

export class GatewayLink extends EventEmitter<GatewayLinkEvents> {
  private socket: GatewaySocket | undefined;
  private welcome: Schemas['GatewayWelcome'] | undefined;
  private stopped = false;
  private seq = 0;
  private lastAckAt = 0;
  private lastBeatAt = 0;
  /** How long this process itself was paused since the gateway last acknowledged a heartbeat. */
  private pausedSinceAck = 0;
  private devicesDirty = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private offInventory: (() => void) | undefined;
  private readonly logger: Logger;
  /** Memory requests awaiting the gateway's reply, by id. */
  private readonly memoryWaiting = new Map<
    string,
    { resolve: (r: Schemas['GatewayMemoryReply']) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();

  constructor(private readonly opts: GatewayLinkOptions) {
    super();
    this.logger = opts.logger;
  }

  get connected(): boolean {
    return this.welcome !== undefined;
  }

  start(): void {
    this.offInventory = this.opts.inventory.onChange(() => void this.pushDevices());
    void this.connect();
  }

  /** Says goodbye (1001), so the gateway takes the host offline at once rather than after its timeout. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.offInventory?.();
    clearTimeout(this.reconnectTimer);
    this.stopHeartbeats();
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2000);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1001, 'SHUTTING_DOWN');
    });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let socket: GatewaySocket;
    let hello: WorkerMessage;
    try {
      // Names read from simctl, adb or a profile: storable, or the gateway could not record the host.
      const snapshot = storableDeep(await this.opts.inventory.snapshot());
      const textRecognition = await this.opts.textRecognition?.();
      const checks = this.opts.checks ? storableDeep(await this.opts.checks()) : undefined;
      hello = {
        type: 'hello',
        protocolVersion: PROTOCOL_VERSION,
        host: this.opts.identity,
        ...snapshot,
        ...(textRecognition ? { textRecognition } : {}),
        ...(checks ? { checks } : {}),
      };
      socket = await this.opts.dial();
    } catch (err) {
      if (err instanceof DialError && err.fatal) return this.fail(err);
      return this.scheduleRedial(err as Error);
    }
    if (this.stopped) return socket.close(1001, 'SHUTTING_DOWN');
    this.socket = socket;
    socket.on('message', (data, isBinary) => this.onMessage(socket, data, isBinary));
    socket.on('close', (code, reason) => this.onClose(socket, code, reason.toString()));
    socket.on('error', (err) => this.logger.warn({ err: err.message }, 'gateway connection error'));
    this.devicesDirty = false;
    this.send(hello);
  }

  private onMessage(socket: GatewaySocket, data: Buffer | string, isBinary: boolean): void {
    if (socket !== this.socket) return;
    let msg: unknown;
    try {
      msg = isBinary ? undefined : JSON.parse(data.toString());
    } catch {
      msg = undefined;
    }
    if (!isGatewayMessage(msg)) {
      const { field, reason } = describeValidationError(isGatewayMessage.errors);
      this.logger.error({ field, reason }, 'the gateway sent a message outside the protocol; redialling');
      socket.close(4400, 'PROTOCOL_ERROR');
      return;
    }
    switch (msg.type) {
      case 'welcome':
        return this.onWelcome(msg);
      case 'heartbeat-ack':
        this.lastAckAt = Date.now();
        this.pausedSinceAck = 0;
        return;
      case 'prepare':
      case 'reset':
      case 'call':
        return this.onCommand(msg);
      case 'memory': {
        const w = this.memoryWaiting.get(msg.id);
        if (!w) return; // answered after its timeout; the write will be retried under the same id
        this.memoryWaiting.delete(msg.id);
        clearTimeout(w.timer);
        return w.resolve(msg);
      }
      case 'error': {
        const level = FATAL_CLOSE_REASONS.has(msg.code) || msg.code === 'HOST_ID_IN_USE' ? 'error' : 'warn';
        this.logger[level]({ code: msg.code, hint: msg.hint }, `gateway: ${msg.message}`);
        return;
      }
    }
  }

  private onCommand(cmd: Schemas['GatewayPrepare'] | Schemas['GatewayReset'] | Schemas['GatewayCall']): void {
    this.opts.commands(cmd).then(
      (value) => this.send({ type: 'result', id: cmd.id, ok: true, ...(value ? { value } : {}) }),
      (err: Error & { code?: Schemas['ErrorCode']; hint?: string; details?: Record<string, unknown> }) => {
        this.logger.warn({ command: cmd.type === 'call' ? cmd.method : cmd.type, localId: cmd.localId, code: err.code, err: err.message }, 'command failed');
        this.send({
          type: 'result',
          id: cmd.id,
          ok: false,
          error: {
            code: err.code ?? 'DEVICE_FAILED',
            message: err.message.slice(0, 2000),
            ...(err.hint ? { hint: err.hint } : {}),
            ...(err.details ? { details: err.details } : {}),
          },
        });
      },
    );
  }

  private onWelcome(welcome: Schemas['GatewayWelcome']): void {
    this.welcome = welcome;
    this.opts.backoff.reset();
    this.lastAckAt = this.lastBeatAt = Date.now();
    this.pausedSinceAck = 0;
    this.logger.info({ gatewayId: welcome.gatewayId, heartbeatIntervalMs: welcome.heartbeatIntervalMs }, 'registered with the gateway');
    // A second welcome on the same connection replaces the first's timer rather than adding one (a
    // hostile or confused gateway sending welcome after welcome multiplied the heartbeats).
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => this.beat(), welcome.heartbeatIntervalMs);
    this.emit('ready', welcome);
    if (this.devicesDirty) void this.pushDevices();
  }

  private beat(): void {
    const welcome = this.welcome;
    if (!welcome || !this.socket) return;
    // An unanswered gateway means a half-open connection: drop it and redial. Not counted: the time
    // this process itself was stopped (a heap snapshot, a starved CPU), seen as this timer running
    // late: the gateway's acknowledgements are then still unread in the socket, and this runs first.
    const now = Date.now();
    const late = now - this.lastBeatAt - welcome.heartbeatIntervalMs;
    this.lastBeatAt = now;
    if (late >= PAUSE_MS) {
      this.pausedSinceAck += late;
      this.logger.warn({ pausedMs: late }, 'this worker was paused; the gateway has time to answer before it counts as silent');
    }
    const silentMs = now - this.lastAckAt - this.pausedSinceAck;
    if (silentMs > Math.max(3 * welcome.heartbeatIntervalMs, welcome.hostTimeoutMs / 2)) {
      this.logger.warn({ silentMs, pausedMs: this.pausedSinceAck }, 'the gateway stopped acknowledging heartbeats; redialling');
      this.socket.terminate();
      return;
    }
    const m = process.memoryUsage();
    let held: Schemas['WorkerHoldings'] | undefined;
    let strain: Schemas['WorkerStrain'] | undefined;
    try {
      held = this.opts.held?.();
      strain = this.opts.strain?.();
    } catch (err) {
      this.logger.warn({ err }, 'could not count what the stores hold; the heartbeat goes without it');
    }
    this.send({
      type: 'heartbeat',
      seq: this.seq++,
      sentAt: new Date().toISOString(),
      process: { rssBytes: m.rss, heapUsedBytes: m.heapUsed, externalBytes: m.external, arrayBuffersBytes: m.arrayBuffers },
      ...(held ? { held } : {}),
      ...(strain ? { strain } : {}),
    });
  }

  private async pushDevices(): Promise<void> {
    if (!this.welcome) {
      this.devicesDirty = true;
      return;
    }
    try {
      const snapshot = storableDeep(await this.opts.inventory.snapshot());
      this.send({ type: 'devices', ...snapshot });
    } catch (err) {
      this.logger.warn({ err }, 'could not gather the device list; will report it on the next change');
    }
  }

  private onClose(socket: GatewaySocket, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    this.welcome = undefined;
    this.stopHeartbeats();
    if (this.stopped) return;
    this.emit('disconnected', { code, reason });
    if (FATAL_CLOSE_REASONS.has(reason)) {
      return this.fail(
        new DialError(reason, `the gateway closed the connection: ${reason}`, 'run the same simfleet version on the worker and the gateway', true),
      );
    }
    this.logger.warn({ code, reason }, 'gateway connection closed');
    this.scheduleRedial();
  }

  private scheduleRedial(err?: Error): void {
    if (this.stopped) return;
    const delayMs = this.opts.backoff.next();
    this.logger.warn({ err: err?.message, code: (err as DialError | undefined)?.code, delayMs }, 'redialling the gateway');
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private fail(err: DialError): void {
    this.logger.error({ code: err.code, hint: err.hint }, err.message);
    this.stopped = true;
    this.offInventory?.();
    this.emit('fatal', err);
  }

  private stopHeartbeats(): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  /**
   * Sends a memory write or load and waits for the gateway's answer. Rejects at once when not
   * connected, or after `timeoutMs`; the caller keeps the write and tries again.
   */
  memory(msg: Schemas['WorkerMemoryWrite'] | Schemas['WorkerMemoryLoad'], timeoutMs: number): Promise<Schemas['GatewayMemoryReply']> {
    if (!this.welcome || this.socket?.readyState !== OPEN) return Promise.reject(new Error('not connected to a gateway'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.memoryWaiting.delete(msg.id);
        reject(new Error(`no answer to ${msg.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.memoryWaiting.set(msg.id, { resolve, reject, timer });
      this.send(msg);
    });
  }

  private send(msg: WorkerMessage): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(msg));
  }
}
