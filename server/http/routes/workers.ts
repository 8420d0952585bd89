import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractWebSocket } from '../contract-route.js';
import type { GatewayServices } from '../services.js';

export function workerRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractWebSocket(app, 'connectWorker', (socket, req) => {
    s.hub.accept(socket, principalOf(req));
  });
}
