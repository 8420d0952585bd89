// Perception questions about a session's device, asked of the worker that watches it. The gateway
// decides who may ask and about which device (team, state, lease epoch); the worker answers from
// frames it has already analysed. Answers are checked against the contract before they are passed
// on, so a worker of another build cannot hand a client something the API does not promise.
import type { Logger } from 'pino';
import { schemaValidator, describeValidationError, type Schemas } from '../../../openapi/contract.js';
import type { Database } from '../../db/database.js';
import { getDevice } from '../../db/repositories/devices.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { ApiError } from '../../errors.js';
import type { Principal } from '../tokens.js';
import type { CallCommand, DeviceCommands } from './commands.js';
import { ended, type SessionService } from './service.js';

const CALL_TIMEOUT_MS = 10_000;
/**
 * A wait is answered by the worker at its own timeout; this margin covers what comes after it: the
 * worker composing its answer (the moving region, the screen) and the hops back. That costs what a
 * screen read does, so it gets a screen read's time: at 5 s, a full test run on 2 cores once got a
 * 504 for a 1.5 s wait whose answer (not-settled) was merely late.
 */
const WAIT_MARGIN_MS = CALL_TIMEOUT_MS;

const checks = {
  'perception.mark': schemaValidator<Schemas['MarkCreated']>('MarkCreated'),
  'perception.changes': schemaValidator<Schemas['Changes']>('Changes'),
  'perception.wait': schemaValidator<Schemas['WaitResult']>('WaitResult'),
  'screen.read': schemaValidator<Schemas['ScreenOutline']>('ScreenOutline'),
  'screen.locate': schemaValidator<Schemas['Located']>('Located'),
  'action.run': schemaValidator<Schemas['ActionResult']>('ActionResult'),
  'steps.run': schemaValidator<Schemas['DoResult']>('DoResult'),
  'screen.look': schemaValidator<Schemas['LookImage']>('LookImage'),
  'events.read': schemaValidator<Schemas['DeviceEvents']>('DeviceEvents'),
  'screen.live': schemaValidator<Schemas['LiveImage']>('LiveImage'),
  'device.permission': schemaValidator<Schemas['PermissionResult']>('PermissionResult'),
};

/**
 * How long one step may take, end to end: its settle wait (a triaged step waits up to twice more),
 * the reads around it, and for scrolls and forms a viewport at a time.
 */
function stepBudgetMs(s: Schemas['Step']): number {
  const wait = (s.timeoutMs ?? 5000) + WAIT_MARGIN_MS;
  if (s.action === 'fill') return wait * (4 + 2 * (s.fields?.length ?? 1));
  if (s.action === 'scroll') return wait * (2 + (s.maxScrolls ?? 10));
  return wait * 3;
}

/** A plan's time: every step once, plus each block's steps again for its extra rounds and retries, and its condition checks. */
function planBudgetMs(body: Schemas['DoRequest']): number {
  const range = (first: number, last: number) => body.steps.slice(first, last + 1).reduce((t, s) => t + stepBudgetMs(s), 0);
  let total = body.steps.reduce((t, s) => t + stepBudgetMs(s), CALL_TIMEOUT_MS);
  for (const b of body.blocks ?? []) {
    const rounds = (b.repeat ? (b.repeat.times ?? 100) : 1) * (1 + (b.retries ?? 0));
    const check = (b.when ?? b.repeat?.while)?.timeoutMs ?? 0;
    total += (rounds - 1) * range(b.first, b.last) + rounds * (check + 2 * WAIT_MARGIN_MS + 5000);
  }
  return total;
}

export interface PerceptionObserver {
  /** One answer given (its outcome) or refused (its error code). */
  onAnswer(method: CallCommand['method'], outcome: string): void;
}

export class SessionPerception {
  constructor(
    private readonly db: Database,
    private readonly sessions: SessionService,
    private readonly commands: DeviceCommands,
    private readonly observer: PerceptionObserver,
    private readonly logger: Logger,
  ) {}

  async mark(principal: Principal, sessionId: string): Promise<Schemas['MarkCreated']> {
    return this.ask(principal, sessionId, 'perception.mark', {}, CALL_TIMEOUT_MS, () => 'ok') as Promise<Schemas['MarkCreated']>;
  }

  async changes(principal: Principal, sessionId: string, since: string | undefined): Promise<Schemas['Changes']> {
    const params = since ? { since } : {};
    return this.ask(principal, sessionId, 'perception.changes', params, CALL_TIMEOUT_MS, (v) => (v as Schemas['Changes']).changed) as Promise<
      Schemas['Changes']
    >;
  }

  async wait(principal: Principal, sessionId: string, body: Schemas['WaitRequest']): Promise<Schemas['WaitResult']> {
    const timeoutMs = (body.timeoutMs ?? 10_000) + WAIT_MARGIN_MS;
    return this.ask(principal, sessionId, 'perception.wait', body, timeoutMs, (v) => (v as Schemas['WaitResult']).status) as Promise<Schemas['WaitResult']>;
  }

  async screen(principal: Principal, sessionId: string, live = false): Promise<Schemas['ScreenOutline']> {
    return this.ask(principal, sessionId, 'screen.read', live ? { live: true } : {}, CALL_TIMEOUT_MS, (v) =>
      (v as Schemas['ScreenOutline']).screen.known ? 'known' : 'new',
    ) as Promise<Schemas['ScreenOutline']>;
  }

  async locate(principal: Principal, sessionId: string, body: Schemas['LocateRequest']): Promise<Schemas['Located']> {
    return this.ask(principal, sessionId, 'screen.locate', body, CALL_TIMEOUT_MS, (v) => (v as Schemas['Located']).how) as Promise<Schemas['Located']>;
  }

  async act(principal: Principal, sessionId: string, body: Schemas['ActionRequest']): Promise<Schemas['ActionResult']> {
    return this.ask(principal, sessionId, 'action.run', body, stepBudgetMs(body), (v) => (v as Schemas['ActionResult']).verdict) as Promise<
      Schemas['ActionResult']
    >;
  }

  async look(principal: Principal, sessionId: string, req: Schemas['LookRequest']): Promise<Schemas['LookImage']> {
    return this.ask(principal, sessionId, 'screen.look', req, CALL_TIMEOUT_MS, (v) => (v as Schemas['LookImage']).format) as Promise<Schemas['LookImage']>;
  }

  async steps(principal: Principal, sessionId: string, body: Schemas['DoRequest']): Promise<Schemas['DoResult']> {
    const timeoutMs = planBudgetMs(body);
    return this.ask(principal, sessionId, 'steps.run', body, timeoutMs, (v) => `do:${(v as Schemas['DoResult']).divergence?.code ?? 'done'}`) as Promise<
      Schemas['DoResult']
    >;
  }

  /** A permission of the session's app set on its device; a change of the device, so viewers may not. */
  async permission(principal: Principal, sessionId: string, body: Schemas['PermissionRequest']): Promise<Schemas['PermissionResult']> {
    // Android takes one adb call per platform permission behind the name (up to fourteen for "all").
    return this.ask(principal, sessionId, 'device.permission', body, 4 * CALL_TIMEOUT_MS, (v) => `${(v as Schemas['PermissionResult']).action}`) as Promise<
      Schemas['PermissionResult']
    >;
  }

  /**
   * The device's event log after `after` (streams/device-tap.ts). Not a client's question: the
   * stream that asks has checked who watches, and reading the log keeps no session alive.
   */
  async deviceEvents(row: SessionRow, after: number, waitMs: number): Promise<Schemas['DeviceEvents']> {
    return this.stream(row, 'events.read', { after, waitMs }, waitMs) as Promise<Schemas['DeviceEvents']>;
  }

  /** The newest frame after `after` as a small JPEG, for the live screen (same terms as deviceEvents). */
  async liveFrame(row: SessionRow, params: { after: number; waitMs: number; scale: number; quality: number }): Promise<Schemas['LiveImage']> {
    return this.stream(row, 'screen.live', params, params.waitMs) as Promise<Schemas['LiveImage']>;
  }

  private async stream(row: SessionRow, method: 'events.read' | 'screen.live', params: Record<string, unknown>, waitMs: number): Promise<unknown> {
    const { hostId, localId, epoch } = await this.target(row);
    const value = await this.commands.call(hostId, { localId, epoch, method, params, team: row.team }, waitMs + CALL_TIMEOUT_MS);
    const check = checks[method];
    if (!check(value)) {
      const { field, reason } = describeValidationError(check.errors);
      this.logger.error({ field, reason, sessionId: row.id, method }, 'a worker answered outside the contract');
      throw new ApiError('INTERNAL', { message: `the worker's answer to ${method} does not match the contract (${field} ${reason})` });
    }
    return value;
  }

  private async ask(
    principal: Principal,
    sessionId: string,
    method: CallCommand['method'],
    params: Record<string, unknown>,
    timeoutMs: number,
    outcome: (value: unknown) => string,
  ): Promise<unknown> {
    try {
      const row = await this.sessions.get(principal, sessionId);
      const { hostId, localId, epoch } = await this.target(row);
      // Watching is not acting: a viewer's questions do not keep the session alive.
      if (principal.role !== 'viewer') this.sessions.touch(row);
      const value = await this.commands.call(hostId, { localId, epoch, method, params, team: row.team }, timeoutMs);
      const check = checks[method];
      if (!check(value)) {
        const { field, reason } = describeValidationError(check.errors);
        this.logger.error({ method, field, reason, sessionId }, 'a worker answered outside the contract');
        throw new ApiError('INTERNAL', { message: `the worker's answer to ${method} does not match the contract (${field} ${reason})` });
      }
      this.observer.onAnswer(method, outcome(value));
      return value;
    } catch (err) {
      this.observer.onAnswer(method, err instanceof ApiError ? err.code : 'INTERNAL');
      throw err;
    }
  }

  private async target(row: SessionRow): Promise<{ hostId: string; localId: string; epoch: number }> {
    if (row.state === 'ended') {
      throw ended(row);
    }
    if (row.state !== 'ready' || !row.device_id || !row.host_id || row.epoch === null) {
      throw new ApiError('SESSION_NOT_READY', { message: `session ${row.id} is ${row.state}; it has no device to look at yet`, details: { state: row.state } });
    }
    const device = await getDevice(this.db, row.device_id);
    if (!device) throw new ApiError('INTERNAL', { message: `session ${row.id} holds device ${row.device_id}, which is not in the farm` });
    return { hostId: row.host_id, localId: device.local_id, epoch: row.epoch };
  }
}
