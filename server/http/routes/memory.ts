import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import type { GatewayServices } from '../services.js';

export function memoryRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'listApps', async (req) => ({ apps: await s.memory.apps(principalOf(req)) }));
  contractRoute(app, 'listAppScreens', async (req) => s.memory.screens(principalOf(req), req.params.appId));
  contractRoute(app, 'getAppGraph', async (req) => s.memory.graph(principalOf(req), req.params.appId));
  contractRoute(app, 'getAppPath', async (req) => ({ steps: await s.memory.path(principalOf(req), req.params.appId, req.query.from, req.query.to) }));
  contractRoute(app, 'listEscalations', async (req) => ({ escalations: await s.memory.escalations(principalOf(req), req.query) }));
  contractRoute(app, 'forgetApp', async (req, reply) => {
    await s.memory.forget(req.params.appId);
    reply.code(204);
    return undefined as never;
  });
}
