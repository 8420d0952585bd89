// The Fastify application: hooks in order (closing → metrics → auth), error mapping, the
// WebSocket plugin, then one module of routes per resource.
import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';
import { installAuth } from './auth.js';
import { frameworkErrors, installErrorHandling } from './error-handler.js';
import { installJsonBodies } from './json-body.js';
import { installRequestLog } from './request-log.js';
import { installTextGuard } from './text-guard.js';
import { installHttpMetrics } from './metrics.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { farmRoutes } from './routes/farm.js';
import { healthRoutes } from './routes/health.js';
import { queueRoutes } from './routes/queue.js';
import { memoryRoutes } from './routes/memory.js';
import { perceptionRoutes } from './routes/perception.js';
import { actingRoutes } from './routes/acting.js';
import { sessionRoutes } from './routes/sessions.js';
import { tokenRoutes } from './routes/tokens.js';
import { workerRoutes } from './routes/workers.js';
import { streamRoutes } from './routes/streams.js';
import type { GatewayServices } from './services.js';
import { validatorCompiler } from './validation.js';

export interface HttpOptions {
  logger: Logger;
  bodyLimitBytes: number;
  wsMaxPayloadBytes: number;
  isClosing(): boolean;
  /** Called before the server stops listening: closes every WebSocket with a reason. */
  closeSockets(): Promise<void>;
}

export async function buildHttpApp(s: GatewayServices, opts: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    bodyLimit: opts.bodyLimitBytes,
    // Fastify's own 503 body is not our error shape; the closing hook below answers instead.
    return503OnClosing: false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    frameworkErrors,
    // One line per request instead, when it is answered (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app, opts.bodyLimitBytes);
  installJsonBodies(app);
  installRequestLog(app);
  installTextGuard(app);
  app.addHook('onRequest', async (_req) => {
    if (opts.isClosing()) throw new ApiError('SHUTTING_DOWN');
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // A request that arrived before the shutdown began is answered, but its keep-alive connection
    // must not outlive it: idle connections are closed only when the shutdown starts, and this one
    // was busy then, so it would hold the drain open until the deadline.
    if (opts.isClosing()) reply.header('connection', 'close');
  });
  installHttpMetrics(app, s.metrics.registry);
  installAuth(app, s.tokens);
  await app.register(websocket, {
    options: { maxPayload: opts.wsMaxPayloadBytes },
    preClose: async () => {
      await opts.closeSockets();
      // Everything else (event streams) is told why, too.
      for (const client of app.websocketServer.clients) client.close(1001, 'SHUTTING_DOWN');
      await new Promise<void>((resolve) => app.websocketServer.close(() => resolve()));
    },
  });
  healthRoutes(app, s);
  farmRoutes(app, s);
  tokenRoutes(app, s);
  sessionRoutes(app, s);
  perceptionRoutes(app, s);
  actingRoutes(app, s);
  memoryRoutes(app, s);
  queueRoutes(app, s);
  workerRoutes(app, s);
  streamRoutes(app, s);
  dashboardRoutes(app);
  return app;
}
