// Acting on a session's device through its worker: one action, a run of steps, a replay of a saved
// flow. Around each: the Idempotency-Key (a retried request answered from the first run), and the
// session's recording (what ran is kept with its evidence).
import type { Schemas } from '../../../openapi/contract.js';
import type { Database } from '../../db/database.js';
import { ApiError } from '../../errors.js';
import { once } from '../idempotency.js';
import { parseMaestro } from './maestro/index.js';
import type { SessionPerception } from '../sessions/perception.js';
import type { SessionService } from '../sessions/service.js';
import type { Principal } from '../tokens.js';
import type { FlowService } from './service.js';

/** How long a retry waits for the first run of the same key to answer. */
const RETRY_WAIT_MS = 120_000;

export class Acting {
  constructor(
    private readonly db: Database,
    private readonly sessions: SessionService,
    private readonly perception: SessionPerception,
    private readonly flows: FlowService,
  ) {}

  async act(principal: Principal, sessionId: string, body: Schemas['ActionRequest'], key: string | undefined): Promise<Schemas['ActionResult']> {
    return once(this.db, { team: principal.team, key, route: `actions ${sessionId}`, body, waitMs: RETRY_WAIT_MS }, async () => {
      const result = await this.perception.act(principal, sessionId, body);
      await this.flows.recordAction(sessionId, await this.deviceOf(principal, sessionId), body, result);
      return result;
    });
  }

  async run(principal: Principal, sessionId: string, body: Schemas['DoRequest'], key: string | undefined): Promise<Schemas['DoResult']> {
    return once(this.db, { team: principal.team, key, route: `do ${sessionId}`, body, waitMs: RETRY_WAIT_MS }, async () => {
      const result = await this.perception.steps(principal, sessionId, body);
      await this.flows.recordRun(sessionId, await this.deviceOf(principal, sessionId), body, result);
      return result;
    });
  }

  async replay(principal: Principal, sessionId: string, body: Schemas['ReplayRequest']): Promise<Schemas['DoResult']> {
    const flow = await this.flows.get(principal, body.flow, body.app, body.version);
    const req: Schemas['DoRequest'] = {
      steps: flow.steps,
      ...(body.from !== undefined ? { from: body.from } : {}),
      ...(body.planDigest ? { planDigest: body.planDigest } : {}),
    };
    const result = await this.perception.steps(principal, sessionId, req);
    await this.flows.recordRun(sessionId, await this.deviceOf(principal, sessionId), req, result);
    return { ...result, flow: { name: flow.summary.name, version: flow.summary.version, app: flow.summary.app } };
  }

  /** A Maestro flow sent as text: parsed here, refused whole if anything in it cannot run. */
  async maestro(principal: Principal, sessionId: string, body: Schemas['MaestroRunRequest']): Promise<Schemas['DoResult']> {
    const main = body.path ?? 'flow.yaml';
    const files = new Map(Object.entries(body.files ?? {}));
    files.set(main, body.flow);
    const plan = parseMaestro(
      main,
      (path) => {
        const text = files.get(path);
        if (text === undefined) throw new Error(`not sent: add it to files under "${path}"`);
        return text;
      },
      { env: body.env ?? {} },
    );
    if (plan.problems.length) {
      throw new ApiError('MAESTRO_UNSUPPORTED', {
        message: `${plan.problems.length} problem${plan.problems.length === 1 ? '' : 's'} in ${main}: ${plan.problems
          .slice(0, 3)
          .map((p) => `${p.file}:${p.line} ${p.command} ${p.message}`)
          .join('; ')}${plan.problems.length > 3 ? '; …' : ''}`,
        details: { problems: plan.problems },
      });
    }
    return this.run(principal, sessionId, { steps: plan.steps, ...(plan.blocks.length ? { blocks: plan.blocks } : {}) }, undefined);
  }

  private async deviceOf(principal: Principal, sessionId: string): Promise<string | null> {
    return (await this.sessions.get(principal, sessionId)).device_id;
  }
}
