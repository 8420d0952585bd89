// Authentication and authorisation for every route, driven by the contract: an operation's
// `security: []` makes it public, its `x-simfleet-roles` lists who may call it. A route outside the
// contract must say at registration why it is public (the dashboard's static files are the only
// ones): the gateway refuses to start with any other, so a route added by hand cannot go unguarded.
import type { FastifyInstance } from 'fastify';
import { operationIndex } from '../../openapi/contract.js';
import type { Principal, TokenService } from '../domain/tokens.js';
import { ApiError } from '../errors.js';
import { a } from '../words.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Why a route outside the contract may be served without a token. */
    publicBecause?: string;
  }
}

export function installAuth(app: FastifyInstance, tokens: TokenService): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as { operationId?: string; publicBecause?: string } | undefined;
    if (config?.operationId || config?.publicBecause) return;
    throw new Error(`route ${String(route.method)} ${route.url} is not in the contract (no operationId) and is not marked public (config.publicBecause)`);
  });
  app.addHook('onRequest', async (req) => {
    const operationId = req.routeOptions.config?.operationId;
    if (!operationId) {
      // The 404 handler (no route) and a route marked public; anything else is refused, not served.
      if (req.routeOptions.url === undefined || req.routeOptions.config?.publicBecause) return;
      throw new ApiError('UNAUTHORIZED');
    }
    const info = operationIndex.get(operationId)!;
    if (info.roles === 'public') return;
    const header = req.headers.authorization;
    const ticket = (req.query as { ticket?: unknown } | undefined)?.ticket;
    let principal: Principal;
    if (!header && info.websocket && typeof ticket === 'string') {
      // Browsers cannot set headers on a WebSocket: a single-use ticket stands for the token.
      principal = await tokens.redeemTicket(ticket);
    } else {
      if (!header) throw missingCredentials(req.query, info.websocket);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new ApiError('UNAUTHORIZED', { message: 'the Authorization header is not "Bearer <token>"' });
      // Well formed but not one of ours (too short, other characters) is simply an unknown token.
      if (!TOKEN_SHAPE.test(match[1]!)) throw new ApiError('INVALID_TOKEN');
      principal = await tokens.authenticate(match[1]!);
    }
    req.principal = principal;
    req.log = req.log.child({ tokenId: principal.tokenId, team: principal.team });
    if (!info.roles.includes(principal.role)) {
      throw new ApiError('FORBIDDEN', { message: `${a(principal.role)} token may not call ${operationId}; allowed roles: ${info.roles.join(', ')}` });
    }
  });
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

/** No Authorization header. A WebSocket given `?token=` is told the query parameter it takes. */
function missingCredentials(query: unknown, websocket: boolean): ApiError {
  if (websocket && typeof (query as { token?: unknown } | undefined)?.token === 'string') {
    return new ApiError('UNAUTHORIZED', {
      message: 'a WebSocket takes ?ticket=, not ?token=: a token never goes in a URL',
      hint: 'POST /v1/tickets with the token in the Authorization header gives a single-use ticket, good for 30 s; connect with ?ticket=<it>, or send the Authorization header if the client can',
    });
  }
  return new ApiError('UNAUTHORIZED');
}

/** The authenticated caller; only valid on routes that are not public. */
export function principalOf(req: { principal?: Principal }): Principal {
  if (!req.principal) throw new ApiError('UNAUTHORIZED');
  return req.principal;
}
