// The dashboard: the few static files in server/dashboard/, served as they are (no build step).
// These are not contract routes: they carry no operationId, so the auth hook lets them through;
// the page itself calls the API with the token the user pastes. Only the files found in that one
// folder at start-up can be named, so no request reaches outside it.
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../../errors.js';
import { packageRoot } from '../../paths.js';

/** Read from the repository rather than dist/: tsc does not copy the files, and nothing needs to. */
export const dashboardDir = join(packageRoot, 'server', 'dashboard');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// The page loads nothing from elsewhere and shows frames through blob: URLs; a form can never
// submit (so a pasted token cannot end up in a URL even if the script failed to load).
const HEADERS = {
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

export function dashboardRoutes(app: FastifyInstance, dir = dashboardDir): void {
  let files: Set<string>;
  try {
    files = new Set(readdirSync(dir).filter((name) => TYPES[extname(name)] !== undefined));
  } catch (err) {
    // An install without the folder (an image that copied only dist/) still serves the API.
    app.log.warn({ err, dir }, 'no dashboard: its files are missing');
    return;
  }
  const send = async (name: string, reply: FastifyReply) => {
    if (!files.has(name)) throw new ApiError('ROUTE_NOT_FOUND');
    reply.headers(HEADERS).type(TYPES[extname(name)]!);
    return readFile(join(dir, name));
  };
  // Static files only: the page holds no data until its user gives it a token.
  const config = { publicBecause: 'the dashboard page and its scripts; every call they make carries a token' };
  app.get('/', { config }, async (_req, reply) => send('index.html', reply));
  app.get<{ Params: { file: string } }>('/dashboard/:file', { config }, async (req, reply) => send(req.params.file, reply));
}
