// The one place where failures become HTTP responses: every error leaves as
// {"error": {code, message, hint, details?, requestId}} with the status its code maps to.
// Anything unexpected is logged in full and answered as INTERNAL, never with its internals.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeValidationError } from '../../openapi/contract.js';
import { isOutage } from '../db/outage.js';
import { ApiError, isApiError } from '../errors.js';
import { drainInsteadOfClosing, refuseBeforeContinue } from './body-limit.js';
import { noteRefusal } from './request-log.js';

const WHERE: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function toApiError(err: FastifyError | Error): ApiError {
  if (isApiError(err)) return err;
  // A connection cut by a Postgres restart mid-statement is the same outage as no connection at all.
  if (isOutage(err)) {
    return new ApiError('NOT_READY', {
      message: 'the database is unavailable or busy',
      hint: 'retry in a few seconds; GET /readyz shows the database check',
      cause: err,
    });
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    const where = WHERE[fe.validationContext ?? 'body'] ?? 'body';
    const { field, reason } = describeValidationError(fe.validation as never);
    const name = field ? `${where}.${field}` : where;
    return new ApiError('VALIDATION_FAILED', { message: `${name} ${reason}`, details: { in: where, field, reason }, ...hintFor(field, reason) });
  }
  switch (fe.code) {
    // The router's own refusals, before any route runs (frameworkErrors below).
    case 'FST_ERR_BAD_URL':
      return new ApiError('VALIDATION_FAILED', {
        message: 'the URL is not valid: a path segment does not decode',
        hint: 'percent-encode path segments as UTF-8',
        details: { in: 'path', reason: 'does not decode' },
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('VALIDATION_FAILED', {
        message: 'a path segment is longer than any id',
        hint: 'ids are at most 100 characters',
        details: { in: 'path', reason: 'too long' },
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('MALFORMED_JSON', { message: `the body is not valid JSON: ${fe.message}` });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('MALFORMED_JSON', { message: 'the body is empty but Content-Type says JSON' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('BODY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { message: fe.message });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('VALIDATION_FAILED', {
        message: 'Content-Length does not match the body',
        details: { in: 'header', field: 'content-length', reason: 'does not match the body' },
      });
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) return new ApiError('MALFORMED_JSON', { message: `the body is not valid JSON: ${err.message}` });
  if (fe.statusCode === 413) return new ApiError('BODY_TOO_LARGE');
  if (fe.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('VALIDATION_FAILED', { message: fe.message });
  }
  return new ApiError('INTERNAL', { cause: err });
}

/**
 * A hint more useful than "see the schema" where a guess is common: an action or a /do step names
 * its kind in `action` ({"wait": {...}} was a newcomer's guess).
 */
function hintFor(field: string, reason: string): { hint?: string } {
  if (reason === 'is required' && /(^|\.)action$/.test(field))
    return { hint: 'name the kind in "action", e.g. {"action": "tap", "target": "Settings"} or {"action": "wait", "for": "visible", "target": "Saved"}' };
  return {};
}

/**
 * For Fastify's `frameworkErrors` option: refusals the router makes before any route (or the error
 * handler) runs would otherwise leave in Fastify's own shape, not the contract's.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(err);
  noteRefusal(req, apiError, err);
  void reply.code(apiError.status).send(apiError.toBody(req.id));
}

export function installErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  refuseBeforeContinue(app, bodyLimitBytes);
  app.setErrorHandler((err, req, reply) => {
    let apiError = toApiError(err as FastifyError);
    if (apiError.code === 'BODY_TOO_LARGE') apiError = drainInsteadOfClosing(req, reply, bodyLimitBytes);
    // Logged once, with the request, when the answer has gone (request-log.ts).
    noteRefusal(req, apiError, err);
    if (apiError.code === 'SHUTTING_DOWN') reply.header('connection', 'close');
    // The host's work goes on after the refusal, and the worker says when asking again pays (within
    // a minute: the number comes from a worker, which the gateway does not take at its word).
    const retryAfterMs = apiError.details?.retryAfterMs;
    if (apiError.code === 'HOST_OVERLOADED' && typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs))
      reply.header('retry-after', String(Math.min(60, Math.max(1, Math.ceil(retryAfterMs / 1000)))));
    // A refused WebSocket upgrade ends its connection once the answer is out: the socket was
    // detached from the HTTP server for the upgrade, so nothing else ever closes it, and a gateway
    // stopping waited for it forever (closeAllConnections does not see it).
    if (req.headers.upgrade?.toLowerCase() === 'websocket') {
      reply.header('connection', 'close');
      const socket = req.raw.socket;
      reply.raw.once('finish', () => socket.end());
      setTimeout(() => socket.destroy(), 5000).unref();
    }
    return reply.code(apiError.status).send(apiError.toBody(req.id));
  });
  app.setNotFoundHandler((req, reply) => {
    const apiError = new ApiError('ROUTE_NOT_FOUND', { message: `no route ${req.method} ${req.url.split('?')[0]}` });
    return reply.code(apiError.status).send(apiError.toBody(req.id));
  });
}
