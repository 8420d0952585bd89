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
/** A wait is answered by the worker at its own timeout; this margin covers the hops around it. */
const WAIT_MARGIN_MS = 5_000;

/** One answer that may be either of two schemas (an action's result, or a batch's). */
function eitherOf<A, B>(a: ReturnType<typeof schemaValidator<A>>, b: ReturnType<typeof schemaValidator<B>>) {
  const check = ((v: unknown) => {
    const ok = (v as { steps?: unknown }).steps !== undefined ? b(v) : a(v);
    check.errors = (v as { steps?: unknown }).steps !== undefined ? b.errors : a.errors;
    return ok;
  }) as ((v: unknown) => v is A | B) & { errors: typeof a.errors };
  check.errors = null;
  return check;
}
const actionResult = schemaValidator<Schemas['ActionResult']>('ActionResult');
const batchResult = schemaValidator<Schemas['BatchResult']>('BatchResult');

const checks = {
  'perception.mark': schemaValidator<Schemas['MarkCreated']>('MarkCreated'),
  'perception.changes': schemaValidator<Schemas['Changes']>('Changes'),
  'perception.wait': schemaValidator<Schemas['WaitResult']>('WaitResult'),
  'screen.read': schemaValidator<Schemas['ScreenOutline']>('ScreenOutline'),
  'screen.locate': schemaValidator<Schemas['Located']>('Located'),
  'action.run': eitherOf(actionResult, batchResult),
};

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
    return this.ask(principal, sessionId, 'perception.changes', params, CALL_TIMEOUT_MS, (v) => (v as Schemas['Changes']).changed) as Promise<Schemas['Changes']>;
  }

  async wait(principal: Principal, sessionId: string, body: Schemas['WaitRequest']): Promise<Schemas['WaitResult']> {
    const timeoutMs = (body.timeoutMs ?? 10_000) + WAIT_MARGIN_MS;
    return this.ask(principal, sessionId, 'perception.wait', body, timeoutMs, (v) => (v as Schemas['WaitResult']).status) as Promise<Schemas['WaitResult']>;
  }

  async screen(principal: Principal, sessionId: string): Promise<Schemas['ScreenOutline']> {
    return this.ask(principal, sessionId, 'screen.read', {}, CALL_TIMEOUT_MS, (v) => ((v as Schemas['ScreenOutline']).screen.known ? 'known' : 'new')) as Promise<Schemas['ScreenOutline']>;
  }

  async locate(principal: Principal, sessionId: string, body: Schemas['LocateRequest']): Promise<Schemas['Located']> {
    return this.ask(principal, sessionId, 'screen.locate', body, CALL_TIMEOUT_MS, (v) => (v as Schemas['Located']).how) as Promise<Schemas['Located']>;
  }

  async act(principal: Principal, sessionId: string, body: Schemas['ActionRequest'] | Schemas['BatchRequest']): Promise<Schemas['ActionResult'] | Schemas['BatchResult']> {
    // Each step's settle wait, plus the touch and the reads around it.
    const steps = 'steps' in body ? body.steps : [body];
    const timeoutMs = steps.reduce((t, s) => t + (s.timeoutMs ?? 5000) + WAIT_MARGIN_MS, CALL_TIMEOUT_MS);
    const outcome = (v: unknown) => ('steps' in body ? `batch:${(v as Schemas['BatchResult']).stoppedAt ? 'stopped' : 'done'}` : (v as Schemas['ActionResult']).verdict);
    return this.ask(principal, sessionId, 'action.run', body, timeoutMs, outcome) as Promise<Schemas['ActionResult'] | Schemas['BatchResult']>;
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
