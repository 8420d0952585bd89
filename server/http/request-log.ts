// One log line per request, when its answer has gone, at the level its outcome deserves. Fastify's
// own request logging wrote two lines a request at info and the error handler a third, which on a
// laptop pushed the start banner off the screen; and a page that did not load (a name that does not
// resolve) was logged as a gateway error. The error handler notes why a request was refused; this
// hook writes that with the request.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the request was refused or failed, noted by the error handler for the one line. */
    refusal?: { code: string; reason: string; err?: unknown; details?: Record<string, unknown> | undefined };
  }
}

/** The gateway could not serve it, but nothing is wrong with the gateway: the farm is busy or going away. */
const UNAVAILABLE = new Set(['SHUTTING_DOWN', 'NOT_READY', 'HOST_OVERLOADED', 'HOST_UNREACHABLE', 'COMMAND_TIMEOUT', 'DEVICE_FAILED']);
/** A 5xx that is about what the caller asked for (the app's page did not load), not about the farm. */
const CALLERS = new Set(['APP_UNREACHABLE']);

export type Level = 'info' | 'warn' | 'error';

/** `code` undefined: the handler answered as it meant to (a 503 from /readyz is an answer, not a failure). */
export function levelOf(status: number, code: string | undefined): Level {
  if (code === undefined || status < 500 || CALLERS.has(code)) return 'info';
  if (code && UNAVAILABLE.has(code)) return 'warn';
  return 'error';
}

export function noteRefusal(req: FastifyRequest, e: ApiError, err: unknown): void {
  req.refusal = { code: e.code, reason: e.message, ...(e.status >= 500 && e.code === 'INTERNAL' ? { err } : {}), details: e.details };
}

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    const r = req.refusal;
    const level = levelOf(reply.statusCode, r?.code);
    const line = {
      req: { method: req.method, url: req.url },
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime),
      ...(r ? { code: r.code, reason: r.reason } : {}),
      ...(r?.err ? { err: r.err } : {}),
      ...(r?.code === 'HOST_OVERLOADED' ? { details: r.details } : {}),
    };
    req.log[level](line, r ? (reply.statusCode >= 500 && level === 'error' ? 'request failed' : 'request refused') : 'request completed');
  });
}
