import type { FastifyInstance } from 'fastify';
import { document } from '../../../openapi/contract.js';
import { contractRoute } from '../contract-route.js';
import type { GatewayServices } from '../services.js';

// Probed every few seconds by load balancers and Prometheus: log only warnings and errors.
const QUIET = { logLevel: 'warn' } as const;

export function healthRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(
    app,
    'getHealth',
    async () => ({
      status: 'ok' as const,
      version: s.version,
      gatewayId: s.gatewayId,
      uptimeSeconds: Math.round((Date.now() - s.startedAt) / 1000),
    }),
    QUIET,
  );

  contractRoute(
    app,
    'getReadiness',
    async (_req, reply) => {
      const readiness = await s.readiness();
      reply.code(readiness.status === 'ready' ? 200 : 503);
      return readiness;
    },
    QUIET,
  );

  contractRoute(
    app,
    'getMetrics',
    async (_req, reply) => {
      reply.type(s.metrics.registry.contentType);
      return s.metrics.registry.metrics();
    },
    QUIET,
  );

  contractRoute(app, 'getOpenApiDocument', async () => document);
}
