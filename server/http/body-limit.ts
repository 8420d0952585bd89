// Every body over SIMFLEET_BODY_LIMIT_BYTES is answered 413 with the limit, and the answer reaches
// the client. Two ways it did not: a client that asks `Expect: 100-continue` was told "continue"
// before the size was looked at; and a refusal sent while the body was still arriving closed the
// connection on unread bytes, which the kernel turns into a reset that can overtake the answer
// (curl exit 55, fetch EPIPE). So an oversized announced body is refused before "continue", and one
// already on its way is read to its end and dropped before the connection is reused or closed.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export function tooLarge(limitBytes: number, sentBytes?: number): ApiError {
  return new ApiError('BODY_TOO_LARGE', {
    message: `the body${sentBytes ? ` (${sentBytes} bytes)` : ''} is larger than the gateway's limit of ${limitBytes} bytes`,
    hint: `send at most ${limitBytes} bytes; the gateway's SIMFLEET_BODY_LIMIT_BYTES sets the limit`,
    details: { limitBytes, ...(sentBytes ? { sentBytes } : {}) },
  });
}

/** Answers `Expect: 100-continue` itself: 413 at once for an announced body over the limit. */
export function refuseBeforeContinue(app: FastifyInstance, limitBytes: number): void {
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const announced = Number(req.headers['content-length']);
    if (!(announced > limitBytes)) {
      res.writeContinue();
      app.server.emit('request', req, res);
      return;
    }
    const body = JSON.stringify(tooLarge(limitBytes, announced).toBody(randomUUID()));
    app.log.info({ code: 'BODY_TOO_LARGE', announced, limitBytes }, 'request refused before its body was sent');
    // The body was never asked for: the connection cannot be reused, and closing it loses nothing.
    res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
}

/**
 * The refusal of a body already on its way: the rest of it is read and dropped (Node does so for a
 * connection kept alive) instead of the connection being closed under it.
 */
export function drainInsteadOfClosing(req: { headers: Record<string, unknown> }, reply: { removeHeader(name: string): unknown }, limitBytes: number): ApiError {
  reply.removeHeader('connection');
  const sent = Number(req.headers['content-length']);
  return tooLarge(limitBytes, Number.isFinite(sent) && sent > 0 ? sent : undefined);
}
