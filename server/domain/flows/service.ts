// Recordings and flows: a session records the steps it runs; saving turns them into the next
// version of a named flow of the team's app; a replay plays a flow's steps on any session of the
// team, with the identity checks the recording's evidence allows.
import type { Logger } from 'pino';
import type { Schemas } from '../../../openapi/contract.js';
import { planDigest } from '../../../openapi/plan-digest.js';
import type { Database } from '../../db/database.js';
import { getDevice } from '../../db/repositories/devices.js';
import * as repo from '../../db/repositories/flows.js';
import { ApiError } from '../../errors.js';
import type { SessionService } from '../sessions/service.js';
import { ended } from '../sessions/service.js';
import type { Principal } from '../tokens.js';
import { recordedRun, recordedStep } from './recorder.js';

export class FlowService {
  constructor(
    private readonly db: Database,
    private readonly sessions: SessionService,
    private readonly logger: Logger,
  ) {}

  async startRecording(principal: Principal, sessionId: string, name: string): Promise<Schemas['Recording']> {
    const row = await this.sessions.get(principal, sessionId);
    if (row.state === 'ended') throw ended(row);
    if (!(await repo.startRecording(this.db, { sessionId, team: row.team, name, platform: row.platform, createdBy: principal.name }))) {
      const existing = await repo.getRecording(this.db, sessionId);
      throw new ApiError('RECORDING_ACTIVE', {
        message: `session ${sessionId} is already recording flow ${existing?.name ?? '?'}`,
        details: { name: existing?.name ?? null },
      });
    }
    this.logger.info({ sessionId, name }, 'recording started');
    return this.recording(principal, sessionId);
  }

  async recording(principal: Principal, sessionId: string): Promise<Schemas['Recording']> {
    await this.sessions.get(principal, sessionId);
    const r = await repo.getRecording(this.db, sessionId);
    if (!r)
      throw new ApiError('NOT_FOUND', { message: `session ${sessionId} is not recording`, hint: 'POST /v1/sessions/{id}/recording {"name": ...} starts one' });
    return { sessionId, name: r.name, app: r.app, steps: r.steps, startedAt: r.started_at.toISOString() };
  }

  async discard(principal: Principal, sessionId: string): Promise<void> {
    await this.sessions.get(principal, sessionId);
    if (!(await repo.deleteRecording(this.db, sessionId))) throw new ApiError('NOT_FOUND', { message: `session ${sessionId} is not recording` });
  }

  async save(principal: Principal, sessionId: string): Promise<Schemas['Flow']> {
    await this.sessions.get(principal, sessionId);
    return this.db.transaction(async (tx) => {
      const r = await repo.getRecording(tx, sessionId);
      if (!r)
        throw new ApiError('NOT_FOUND', {
          message: `session ${sessionId} is not recording`,
          hint: 'POST /v1/sessions/{id}/recording {"name": ...} starts one',
        });
      const rows = await repo.recordedSteps(tx, sessionId);
      if (!rows.length) throw new ApiError('EMPTY_RECORDING', { message: `flow ${r.name}: no step ran while session ${sessionId} was recording` });
      const steps = rows.map((s) => s.step);
      const flow = await repo.insertFlow(tx, {
        team: r.team,
        app: rows.find((s) => s.app)?.app ?? 'unknown app',
        name: r.name,
        platform: r.platform,
        steps,
        step_count: steps.length,
        verified_steps: rows.filter((s) => s.verified).length,
        plan_digest: planDigest(steps),
        recorded_on: rows[0]!.model,
        created_by: r.created_by,
      });
      await repo.deleteRecording(tx, sessionId);
      this.logger.info({ sessionId, flow: flow.name, version: flow.version, steps: flow.step_count, verified: flow.verified_steps }, 'flow saved');
      return present(flow);
    });
  }

  /** Keeps what ran on a recording session; a session that is not recording keeps nothing. */
  async recordAction(sessionId: string, deviceId: string | null, req: Schemas['ActionRequest'], res: Schemas['ActionResult']): Promise<void> {
    await this.append(sessionId, deviceId, res.app, [{ step: recordedStep(req, res), verified: res.verdict === 'ok' }]);
  }

  async recordRun(sessionId: string, deviceId: string | null, req: Schemas['DoRequest'], res: Schemas['DoResult']): Promise<void> {
    const run = recordedRun(req, res);
    await this.append(sessionId, deviceId, run.find((r) => r.result)?.result?.app ?? null, run);
  }

  private async append(sessionId: string, deviceId: string | null, app: string | null, steps: { step: Schemas['Step']; verified: boolean }[]): Promise<void> {
    if (!steps.length || !(await repo.getRecording(this.db, sessionId))) return;
    const model = deviceId ? ((await getDevice(this.db, deviceId))?.model ?? 'unknown device') : 'unknown device';
    await repo.appendRecordedSteps(
      this.db,
      sessionId,
      steps.map((s) => ({ ...s, app, model })),
    );
  }

  async list(principal: Principal, app: string | undefined): Promise<Schemas['FlowSummary'][]> {
    const rows = await repo.listFlows(this.db, principal.role === 'admin' ? null : principal.team, app);
    return rows.map(summary);
  }

  async get(principal: Principal, name: string, app: string | undefined, version: number | undefined): Promise<Schemas['Flow']> {
    const chosen = await this.appOf(principal.team, name, app);
    const row = await repo.getFlow(this.db, principal.team, chosen, name, version);
    if (!row)
      throw new ApiError('NOT_FOUND', {
        message: `flow ${name} of ${chosen} has no version ${version}`,
        hint: 'GET /v1/flows lists the newest version of each flow',
      });
    return present(row);
  }

  async delete(principal: Principal, name: string, app: string | undefined): Promise<void> {
    const chosen = await this.appOf(principal.team, name, app);
    await repo.deleteFlow(this.db, principal.team, chosen, name);
    this.logger.info({ team: principal.team, app: chosen, flow: name }, 'flow deleted');
  }

  /** The app a flow name means: the one given, or the only one that has it. */
  private async appOf(team: string, name: string, app: string | undefined): Promise<string> {
    const apps = await repo.appsWithFlow(this.db, team, name);
    if (app) {
      if (!apps.includes(app))
        throw new ApiError('NOT_FOUND', { message: `no flow ${name} for app ${app}`, hint: 'GET /v1/flows lists the flows and their apps' });
      return app;
    }
    if (!apps.length) throw new ApiError('NOT_FOUND', { message: `no flow ${name}`, hint: "GET /v1/flows lists your team's flows" });
    if (apps.length > 1)
      throw new ApiError('AMBIGUOUS', { message: `flows named ${name} exist for ${apps.length} apps`, hint: 'say which with app', details: { apps } });
    return apps[0]!;
  }
}

function summary(r: repo.FlowRow): Schemas['FlowSummary'] {
  return {
    name: r.name,
    app: r.app,
    version: r.version,
    steps: r.step_count,
    verifiedSteps: r.verified_steps,
    planDigest: r.plan_digest,
    createdAt: r.created_at.toISOString(),
    createdBy: r.created_by,
    recordedOn: r.recorded_on,
  };
}

function present(r: repo.FlowRow): Schemas['Flow'] {
  return { summary: summary(r), steps: r.steps };
}
