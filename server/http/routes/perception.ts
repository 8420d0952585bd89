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

  contractRoute(app, 'getScreen', async (req, reply) => {
    const outline = await s.perception.screen(principalOf(req), req.params.sessionId, req.query.live === true);
    // Text unless the client asks for JSON: agents read the outline, programs the fields.
    if (wantsJson(req.headers.accept)) return outline;
    reply.type('text/plain; charset=utf-8');
    return outline.text;
  });

  contractRoute(app, 'lookAtScreen', async (req, reply) => {
    const crop = req.query.crop?.split(',').map(Number);
    const img = await s.perception.look(principalOf(req), req.params.sessionId, {
      ...(req.query.scale !== undefined ? { scale: req.query.scale } : {}),
      ...(req.query.format ? { format: req.query.format } : {}),
      ...(req.query.quality !== undefined ? { quality: req.query.quality } : {}),
      ...(crop ? { crop: { x: crop[0]!, y: crop[1]!, width: crop[2]!, height: crop[3]! } } : {}),
    });
    reply
      .type(img.format === 'png' ? 'image/png' : 'image/jpeg')
      .header('x-simfleet-width', String(img.width))
      .header('x-simfleet-height', String(img.height))
      .header('x-simfleet-scale', String(img.scale))
      .header('x-simfleet-device-scale', String(img.deviceScale))
      .header('x-simfleet-crop', `${img.crop.x},${img.crop.y},${img.crop.width},${img.crop.height}`)
      .header('x-simfleet-age-ms', String(img.ageMs))
      .header('x-simfleet-source', img.source)
      .header('cache-control', 'no-store');
    return Buffer.from(img.image, 'base64') as never;
  });

  contractRoute(app, 'locateElement', async (req) => s.perception.locate(principalOf(req), req.params.sessionId, req.body));

  contractRoute(app, 'waitForScreen', async (req) => s.perception.wait(principalOf(req), req.params.sessionId, req.body));
}

/** JSON only when it is asked for by name and preferred over plain text. */
function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    const part = accept
      .split(',')
      .map((p) => p.trim())
      .find((p) => p.split(';')[0]!.trim() === type);
    if (!part) return 0;
    const m = part.match(/;\s*q=([\d.]+)/);
    return m ? Number(m[1]) : 1;
  };
  return q('application/json') > 0 && q('application/json') > q('text/plain');
}
