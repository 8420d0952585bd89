import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import type { GatewayServices } from '../services.js';

const keyOf = (headers: Record<string, unknown>) => headers['idempotency-key'] as string | undefined;

export function actingRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'runAction', async (req) => s.acting.act(principalOf(req), req.params.sessionId, req.body, keyOf(req.headers)));

  contractRoute(app, 'runSteps', async (req) => s.acting.run(principalOf(req), req.params.sessionId, req.body, keyOf(req.headers)));

  contractRoute(app, 'setPermission', async (req) => s.perception.permission(principalOf(req), req.params.sessionId, req.body));

  contractRoute(app, 'runMaestro', async (req) => s.acting.maestro(principalOf(req), req.params.sessionId, req.body));

  contractRoute(app, 'replayFlow', async (req) => s.acting.replay(principalOf(req), req.params.sessionId, req.body));

  contractRoute(app, 'startRecording', async (req, reply) => {
    const r = await s.flows.startRecording(principalOf(req), req.params.sessionId, req.body.name);
    reply.code(201);
    return r;
  });

  contractRoute(app, 'getRecording', async (req) => s.flows.recording(principalOf(req), req.params.sessionId));

  contractRoute(app, 'discardRecording', async (req, reply) => {
    await s.flows.discard(principalOf(req), req.params.sessionId);
    reply.code(204);
    return undefined as never;
  });

  contractRoute(app, 'saveRecording', async (req, reply) => {
    const flow = await s.flows.save(principalOf(req), req.params.sessionId);
    reply.code(201);
    return flow;
  });

  contractRoute(app, 'listFlows', async (req) => ({ flows: await s.flows.list(principalOf(req), req.query.app) }));

  contractRoute(app, 'getFlow', async (req) => s.flows.get(principalOf(req), req.params.flowName, req.query.app, req.query.version));

  contractRoute(app, 'deleteFlow', async (req, reply) => {
    await s.flows.delete(principalOf(req), req.params.flowName, req.query.app);
    reply.code(204);
    return undefined as never;
  });
}
