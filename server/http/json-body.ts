// JSON bodies, parsed as Fastify does by default (prototype and constructor poisoning refused), with
// one difference: an empty body is no body on a route whose contract requires none. Many HTTP
// clients send `Content-Type: application/json` on every request, a DELETE included, and were
// refused 400 for the body they never meant to send. A route that requires a body still says the
// body is empty.
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract requires a request body on this route. */
    bodyRequired?: boolean;
  }
}

export function installJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req: FastifyRequest, body: string | Buffer, done) => {
    if (body.length === 0 && !req.routeOptions.config?.bodyRequired) return done(null, undefined);
    parse(req, body as string, done);
  });
}
