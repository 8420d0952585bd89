// One worker connection, gateway side: the protocol's state machine. It validates every message
// against the contract, serialises their handling, watches for silence, and closes with a coded
// reason on anything it cannot accept. It translates; the HostRegistry decides.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  PROTOCOL_VERSION,
  describeValidationError,
  schemaValidator,
  type ErrorCode,
  type GatewayMessage,
  type Schemas,
  type WorkerMessage,
} from '../../openapi/contract.js';
import { sqlState } from '../db/database.js';
import { isOutage, throughOutage } from '../db/outage.js';
import { firstUnstorable } from '../db/unstorable.js';
import type { Connection, HostRegistry } from '../domain/hosts.js';
import { NO_PAUSES, type PauseClock } from '../domain/pauses.js';
import { risenSigns, STRAIN_MEMORY_MS, type Strain } from '../domain/strain.js';
import type { Principal } from '../domain/tokens.js';
import { ApiError, ERRORS } from '../errors.js';
import { OPEN, type WorkerSocket } from './socket.js';

const isWorkerMessage = schemaValidator<WorkerMessage>('WorkerMessage');

type CloseCode = Schemas['WorkerCloseCode'];
export const CLOSE_CODES: Partial<Record<ErrorCode, CloseCode>> = {
  PROTOCOL_ERROR: 4400,
  PROTOCOL_VERSION_MISMATCH: 4426,
  HELLO_TIMEOUT: 4408,
  HEARTBEAT_TIMEOUT: 4408,
  HOST_ID_IN_USE: 4409,
  HOST_REPLACED: 4409,
  MESSAGE_TOO_LARGE: 1009,
  SHUTTING_DOWN: 1001,
  INTERNAL: 1011,
};

export interface LinkTimings {
  heartbeatIntervalMs: number;
  hostTimeoutMs: number;
  helloTimeoutMs: number;
  /** This gateway's own pauses, which do not count as a worker's silence (none when left out). */
  pauses?: PauseClock;
}

/** Workers' memory, persisted by the gateway: workers hold no database credentials. */
export interface MemoryHandler {
  /** True when applied (or a repeat); false when the app was forgotten since the worker loaded it. */
  write(hostId: string, msg: Schemas['WorkerMemoryWrite']): Promise<boolean>;
  load(key: Schemas['MemoryKey']): Promise<{ screens: Schemas['MemoryScreen'][]; edges: Schemas['MemoryEdge'][]; generation: number }>;
  /**
   * Whether this host may read or write a team's memory: only a team whose sessions it serves (or
   * served within the last hour, for writes behind a session that has ended). A worker token is
   * the farm's, not a team's; without this check any host could read every team's app memory.
   */
  mayUse(hostId: string, team: string): Promise<boolean>;
  /** A write refused before it reached the database (text it cannot store): counted with the refused ones. */
  onRefused?(): void;
}

/** What a link needs from the hub that owns it. */
export interface LinkOwner {
  readonly memory?: MemoryHandler | undefined;
  claim(link: WorkerLink): Promise<'ok' | 'in-use'>;
  release(link: WorkerLink): void;
  owns(link: WorkerLink): boolean;
  onProtocolError(code: ErrorCode): void;
  /** A registered worker's heartbeat report (memory, what its stores hold); undefined when its connection ends. */
  onWorkerReport(hostId: string, report: WorkerReport | undefined): void;
}

/** What a worker's heartbeat says about the process: its memory, and what its stores hold. */
export type WorkerReport = Partial<Pick<Schemas['WorkerHeartbeat'], 'process' | 'held' | 'strain'>>;

/** A command for the worker, before the link gives it an id. */
export type WorkerCommand = Omit<Schemas['GatewayPrepare'], 'id'> | Omit<Schemas['GatewayReset'], 'id'> | Omit<Schemas['GatewayCall'], 'id'>;

/** What a command answers: nothing for prepare and reset, the call's value for a call. */
export type CommandValue = Record<string, unknown> | undefined;

interface Pending {
  resolve(value: CommandValue): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class WorkerLink {
  readonly connectionId = randomUUID();
  private readonly pending = new Map<string, Pending>();
  hostId: string | undefined;
  readonly closed: Promise<void>;
  private state: 'hello' | 'ready' | 'closing' | 'closed' = 'hello';
  private conn: Connection | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closedByUs = false;
  private helloTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private lastHeardAt = Date.now();
  private resolveClosed!: () => void;
  private logger: Logger;
  /** The strain counts of this connection's last heartbeat, to see which rose. */
  private strain: Strain | undefined;

  constructor(
    private readonly socket: WorkerSocket,
    private readonly principal: Principal,
    private readonly registry: HostRegistry,
    private readonly owner: LinkOwner,
    private readonly gatewayId: string,
    private readonly timings: LinkTimings,
    logger: Logger,
  ) {
    this.logger = logger.child({ connectionId: this.connectionId });
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    // Handlers are attached synchronously so that no early message is dropped.
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', (code, reason) => this.onClose(code, reason.toString()));
    socket.on('error', (err) => this.onSocketError(err));
    this.helloTimer = setTimeout(() => this.fail('HELLO_TIMEOUT'), timings.helloTimeoutMs);
  }

  get registered(): boolean {
    return this.state === 'ready';
  }

  /** Closes with a coded reason: an error message first, then the close frame. */
  fail(code: ErrorCode, message: string = ERRORS[code].message): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.state = 'closing';
    this.closedByUs = true;
    if (code !== 'SHUTTING_DOWN') {
      this.logger.warn({ code, reason: message }, 'closing worker connection');
      this.owner.onProtocolError(code);
    }
    this.send({ type: 'error', code, message, hint: ERRORS[code].hint });
    this.socket.close(CLOSE_CODES[code] ?? 4400, code);
  }

  /** Whether the peer answers a ping within the timeout (a half-open TCP connection does not). */
  isAlive(timeoutMs: number): Promise<boolean> {
    if (this.socket.readyState !== OPEN) return Promise.resolve(false);
    return new Promise((resolve) => {
      const settle = (alive: boolean) => {
        clearTimeout(timer);
        this.socket.off('pong', onAnswer);
        this.socket.off('message', onAnswer);
        resolve(alive);
      };
      const onAnswer = () => settle(true);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.socket.on('pong', onAnswer);
      this.socket.on('message', onAnswer);
      this.socket.ping();
    });
  }

  terminate(): void {
    this.socket.terminate();
  }

  /** Sends a command and resolves with its value when the worker answers ok; rejects with the worker's code. */
  request(command: WorkerCommand, timeoutMs: number): Promise<CommandValue> {
    if (this.state !== 'ready')
      return Promise.reject(new ApiError('HOST_UNREACHABLE', { message: `host ${this.hostId} is not registered on this connection` }));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const what = command.type === 'call' ? command.method : command.type;
        reject(new ApiError('COMMAND_TIMEOUT', { message: `host ${this.hostId} did not answer ${what} within ${timeoutMs} ms` }));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      // A call says how long it is waited for, so the worker begins no input for a caller who has gone.
      this.send({ ...command, id, ...(command.type === 'call' ? { budgetMs: Math.max(1, Math.round(timeoutMs)) } : {}) } as GatewayMessage);
    });
  }

  private onMessage(data: Buffer | string, isBinary: boolean): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.resetSilenceTimer();
    if (isBinary) return this.fail('PROTOCOL_ERROR', 'binary frames are not part of the worker protocol');
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      return this.fail('PROTOCOL_ERROR', 'the message is not JSON');
    }
    // Check the version before the shape: a worker of another version may not match the schema at all.
    const version = (msg as { type?: unknown; protocolVersion?: unknown } | null)?.protocolVersion;
    if ((msg as { type?: unknown } | null)?.type === 'hello' && typeof version === 'number' && version !== PROTOCOL_VERSION) {
      return this.fail('PROTOCOL_VERSION_MISMATCH', `the worker speaks protocol ${version}; this gateway speaks ${PROTOCOL_VERSION}`);
    }
    if (!isWorkerMessage(msg)) {
      const { field, reason } = describeValidationError(isWorkerMessage.errors);
      return this.fail('PROTOCOL_ERROR', `${field || 'the message'} ${reason}`);
    }
    if (msg.type === 'result') return this.onResult(msg);
    // Text Postgres cannot store, refused by name before it fails a statement: a device named with a
    // NUL closed the connection 1011 INTERNAL, and the worker's every redial (its hello names the
    // same device) failed the same way. Memory messages are answered instead (onMemory): their
    // connection is healthy. Results are not stored as sent (a recorded step is made storable).
    if (msg.type === 'hello' || msg.type === 'devices' || msg.type === 'heartbeat') {
      const bad = firstUnstorable(msg);
      if (bad !== undefined) return this.fail('PROTOCOL_ERROR', `${bad} holds a character that cannot be stored (NUL, or half of a surrogate pair)`);
    }
    // Memory traffic is answered on its own, not behind heartbeats and device reports.
    if (msg.type === 'memory-write' || msg.type === 'memory-load') return void this.onMemory(msg);
    this.enqueue(() => this.handle(msg));
  }

  private async handle(msg: WorkerMessage): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    switch (msg.type) {
      case 'hello':
        return this.onHello(msg);
      case 'heartbeat': {
        if (!this.conn) return this.fail('PROTOCOL_ERROR', 'heartbeat before hello');
        const risen = risenSigns(this.strain, msg.strain);
        if (msg.strain) this.strain = msg.strain;
        const strained = Object.keys(risen).length > 0;
        if (strained)
          this.logger.info({ risen }, `the host reported new signs of strain; placement prefers other hosts for ${STRAIN_MEMORY_MS / 60_000} minutes`);
        if (!(await this.recordHeartbeat(this.conn, strained))) return this.lostOwnership();
        if (msg.process || msg.held || msg.strain) this.owner.onWorkerReport(this.conn.hostId, { process: msg.process, held: msg.held, strain: msg.strain });
        this.send({ type: 'heartbeat-ack', seq: msg.seq });
        return;
      }
      case 'devices': {
        if (!this.conn) return this.fail('PROTOCOL_ERROR', 'devices before hello');
        const conn = this.conn;
        // What the host reports is true whether or not Postgres is up to hear it: it is recorded once
        // the database is back, within the time the host would be given to speak again.
        const owned = await throughOutage('a device report', () => this.registry.reportDevices(conn, msg.backends, msg.devices), {
          withinMs: this.timings.hostTimeoutMs,
          logger: this.logger,
        });
        if (!owned) return this.lostOwnership();
        return;
      }
      case 'result':
        return this.onResult(msg);
      case 'memory-write':
      case 'memory-load':
        return this.onMemory(msg);
    }
  }

  private async onMemory(msg: Schemas['WorkerMemoryWrite'] | Schemas['WorkerMemoryLoad']): Promise<void> {
    const memory = this.owner.memory;
    try {
      if (!this.conn || !this.hostId) throw new ApiError('PROTOCOL_ERROR', { message: 'memory before hello' });
      if (!memory) throw new ApiError('NOT_READY', { message: 'this gateway keeps no memory' });
      const bad = firstUnstorable(msg);
      if (bad !== undefined) {
        this.logger.warn({ hostId: this.hostId, type: msg.type, field: bad }, 'a memory message holds text the database cannot store; refused');
        if (msg.type === 'memory-write') memory.onRefused?.();
        throw new ApiError('VALIDATION_FAILED', { message: `${bad} holds a character that cannot be stored (NUL, or half of a surrogate pair)` });
      }
      if (!(await memory.mayUse(this.hostId, msg.key.team))) {
        this.logger.warn({ hostId: this.hostId, team: msg.key.team, type: msg.type }, 'a host asked for the memory of a team it serves no session of; refused');
        throw new ApiError('FORBIDDEN', { message: `host ${this.hostId} serves no session of team ${msg.key.team}` });
      }
      if (msg.type === 'memory-write') {
        const kept = await memory.write(this.hostId, msg);
        this.send({ type: 'memory', id: msg.id, ok: true, ...(kept ? {} : { forgotten: true }) });
      } else {
        this.send({ type: 'memory', id: msg.id, ok: true, ...(await memory.load(msg.key)) });
      }
    } catch (err) {
      // The database refusing the data itself (SQLSTATE classes 22 and 23) is final for this write: a
      // retry would be refused again, so the worker is told it is not a passing fault.
      const refused = /^2[23]/.test(sqlState(err) ?? '');
      const e =
        err instanceof ApiError
          ? err
          : refused
            ? new ApiError('VALIDATION_FAILED', { message: `the database refused this ${msg.type}: ${(err as Error).message}` })
            : new ApiError('INTERNAL', { cause: err });
      if (!(err instanceof ApiError)) this.logger.warn({ err, hostId: this.hostId, type: msg.type, id: msg.id, refused }, 'a memory request failed');
      this.send({ type: 'memory', id: msg.id, ok: false, error: { code: e.code, message: e.message } });
    }
  }

  private onResult(msg: Schemas['WorkerResult']): void {
    const pending = this.pending.get(msg.id);
    if (!pending) return; // answered after its timeout: the caller has moved on
    this.pending.delete(msg.id);
    clearTimeout(pending.timer);
    if (msg.ok) pending.resolve(msg.value);
    else
      pending.reject(
        new ApiError(msg.error?.code ?? 'DEVICE_FAILED', {
          message: msg.error?.message ?? 'the worker reported a failure',
          ...(msg.error?.hint ? { hint: msg.error.hint } : {}),
          ...(msg.error?.details ? { details: msg.error.details } : {}),
        }),
      );
  }

  private async onHello(msg: Schemas['WorkerHello']): Promise<void> {
    if (this.conn || this.hostId) return this.fail('PROTOCOL_ERROR', 'hello sent twice');
    clearTimeout(this.helloTimer);
    this.hostId = msg.host.id;
    this.logger = this.logger.child({ hostId: msg.host.id });
    if ((await this.owner.claim(this)) === 'in-use') {
      return this.fail('HOST_ID_IN_USE', `another live worker is connected as host ${msg.host.id}`);
    }
    if (this.state !== 'hello') return; // closed while waiting for the claim
    const conn: Connection = { hostId: msg.host.id, connectionId: this.connectionId, gatewayId: this.gatewayId, principal: this.principal };
    const resets = await this.registry.register(conn, msg);
    this.conn = conn;
    if (this.state !== 'hello') return;
    this.state = 'ready';
    this.logger.info({ name: msg.host.name, devices: msg.devices.length, version: msg.host.version }, 'host registered');
    this.send({
      type: 'welcome',
      protocolVersion: PROTOCOL_VERSION,
      hostId: msg.host.id,
      gatewayId: this.gatewayId,
      heartbeatIntervalMs: this.timings.heartbeatIntervalMs,
      hostTimeoutMs: this.timings.hostTimeoutMs,
    });
    this.registry.runReclaims(resets);
  }

  /**
   * Whether this connection still owns its host. A heartbeat that cannot be recorded because the
   * database is away is skipped, not held against the worker: the next one records it. Closing
   * here sent every healthy host into a redial on each Postgres restart, and a session placed on a
   * host in that window failed its prepare as unreachable (seen in chaos runs under load).
   */
  private async recordHeartbeat(conn: Connection, strained: boolean): Promise<boolean> {
    try {
      return await this.registry.heartbeat(conn, strained);
    } catch (err) {
      if (!isOutage(err)) throw err;
      this.logger.warn({ err: (err as Error).message }, 'heartbeat not recorded: the database is unavailable; the next one will be');
      return true;
    }
  }

  /** The database says this connection no longer owns its host: replaced, or swept offline. */
  private lostOwnership(): void {
    this.fail(this.owner.owns(this) ? 'HEARTBEAT_TIMEOUT' : 'HOST_REPLACED');
  }

  private onClose(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.helloTimer);
    clearTimeout(this.silenceTimer);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ApiError('HOST_UNREACHABLE', { message: `the connection to host ${this.hostId} closed before it answered` }));
      this.pending.delete(id);
    }
    this.owner.release(this);
    const conn = this.conn;
    // A worker that closes on its own with 1000/1001 is shutting down: its host goes offline now.
    const clean = !this.closedByUs && (code === 1000 || code === 1001);
    this.logger.info({ code, reason, clean }, 'worker connection closed');
    this.enqueue(async () => {
      if (conn) await this.registry.disconnect(conn, clean);
    });
    void this.queue.finally(() => this.resolveClosed());
  }

  private onSocketError(err: Error): void {
    const code = (err as { code?: string }).code;
    if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      // ws closes the connection with 1009 itself; record why.
      this.logger.warn('worker message larger than SIMFLEET_WS_MAX_PAYLOAD_BYTES');
      this.owner.onProtocolError('MESSAGE_TOO_LARGE');
      this.closedByUs = true;
      return;
    }
    this.logger.warn({ err }, 'worker socket error');
  }

  private resetSilenceTimer(): void {
    this.lastHeardAt = Date.now();
    this.armSilenceTimer(this.timings.hostTimeoutMs);
  }

  private armSilenceTimer(ms: number): void {
    clearTimeout(this.silenceTimer);
    this.silenceTimer = setTimeout(() => this.judgeSilence(), ms);
  }

  /**
   * Silent past the timeout, counting only the time this gateway was listening: after a pause of
   * its own, the worker's heartbeats are still unread in the socket, and this timer fires first.
   */
  private judgeSilence(): void {
    const silentMs = Date.now() - this.lastHeardAt;
    const pausedMs = (this.timings.pauses ?? NO_PAUSES).pausedSince(this.lastHeardAt);
    const left = this.timings.hostTimeoutMs - (silentMs - pausedMs);
    if (left > 0) {
      this.logger.info({ silentMs, pausedMs }, 'worker silent while this gateway was paused; listening a while longer');
      return this.armSilenceTimer(left);
    }
    this.fail('HEARTBEAT_TIMEOUT');
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((err: unknown) => {
      this.logger.error({ err }, 'failed to handle a worker message');
      this.fail('INTERNAL', 'the gateway could not record the message; the worker will redial');
    });
  }

  private send(msg: GatewayMessage): void {
    if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(msg));
  }
}
