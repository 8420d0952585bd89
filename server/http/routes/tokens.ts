import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import { presentToken } from '../present.js';
import type { GatewayServices } from '../services.js';

export function tokenRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'getWhoami', async (req) => {
    const me = principalOf(req);
    return presentToken(await s.tokens.get(me.tokenId!));
  });

  contractRoute(app, 'listTokens', async (req) => ({
    tokens: (await s.tokens.list(req.query.includeRevoked ?? false)).map(presentToken),
  }));

  contractRoute(app, 'createToken', async (req, reply) => {
    const { row, secret } = await s.tokens.mint(req.body, principalOf(req));
    reply.code(201);
    return { token: presentToken(row), secret };
  });

  contractRoute(app, 'createTicket', async (req, reply) => {
    const { ticket, expiresAt } = await s.tokens.issueTicket(principalOf(req));
    reply.code(201);
    return { ticket, expiresAt: expiresAt.toISOString() };
  });

  contractRoute(app, 'revokeToken', async (req) => presentToken(await s.tokens.revoke(req.params.tokenId, principalOf(req))));
}
