// Every route the gateway serves is in the contract or says why it is public: a route added by hand
// without either stops the gateway at boot rather than serving without a token. Fastify with the
// gateway's own auth hooks; the token service is never reached on these routes.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installAuth } from '../../server/http/auth.js';
import type { TokenService } from '../../server/domain/tokens.js';
import { installErrorHandling } from '../../server/http/error-handler.js';

const tokens = {
  authenticate: () => Promise.reject(new Error('not reached')),
  redeemTicket: () => Promise.reject(new Error('not reached')),
} as unknown as TokenService;

function app() {
  const a = Fastify();
  installErrorHandling(a, 1_048_576);
  installAuth(a, tokens);
  return a;
}

describe('the route guard', () => {
  it('refuses to register a route that is neither in the contract nor marked public', async () => {
    const a = app();
    expect(() => a.get('/secret', async () => 'data')).toThrow(/GET \/secret is not in the contract/);
    await a.close();
  });

  it('serves a route marked public without a token, HEAD included, and keeps answering 404 for no route', async () => {
    const a = app();
    a.get('/page', { config: { publicBecause: 'a static page' } }, async () => 'page');
    await a.ready();
    expect((await a.inject({ url: '/page' })).body).toBe('page');
    expect((await a.inject({ method: 'HEAD', url: '/page' })).statusCode).toBe(200);
    expect((await a.inject({ url: '/nothing-here' })).statusCode).toBe(404);
    await a.close();
  });

  it('asks a contract route for its token', async () => {
    const a = app();
    a.get('/v1/hosts', { config: { operationId: 'listHosts' } }, async () => ({ hosts: [] }));
    await a.ready();
    const res = await a.inject({ url: '/v1/hosts' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
    await a.close();
  });
});
