import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import type { GatewayServices } from '../services.js';
import { presentSessions } from './sessions.js';

export function queueRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'listQueue', async () => {
    const entries = await s.sessions.queue();
    const presented = await presentSessions(
      s,
      entries.map((e) => e.row),
    );
    return {
      entries: entries.map((e, i) => ({ session: presented[i]!, effectivePriority: e.effective, waitedSeconds: Math.round(e.waitedSeconds * 10) / 10 })),
    };
  });

  contractRoute(app, 'cancelQueued', async (req) => (await presentSessions(s, [await s.sessions.cancelQueued(principalOf(req), req.params.sessionId)]))[0]!);

  contractRoute(app, 'listTeams', async () => ({ teams: await s.sessions.teams() }));

  contractRoute(app, 'putTeam', async (req) => s.sessions.putTeam(principalOf(req), req.params.team, req.body));
}
