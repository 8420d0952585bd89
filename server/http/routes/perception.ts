import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import type { GatewayServices } from '../services.js';

export function perceptionRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'createMark', async (req, reply) => {
    const mark = await s.perception.mark(principalOf(req), req.params.sessionId);
    reply.code(201);
    return mark;
  });

  contractRoute(app, 'getChanges', async (req) => s.perception.changes(principalOf(req), req.params.sessionId, req.query.since));

  contractRoute(app, 'waitForScreen', async (req) => s.perception.wait(principalOf(req), req.params.sessionId, req.body));
}
