import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { Schemas } from '../../../openapi/contract.js';
import { devicesByIds } from '../../db/repositories/devices.js';
import { getSession, type SessionRow } from '../../db/repositories/sessions.js';
import { principalOf } from '../auth.js';
import { contractRoute, contractWebSocket } from '../contract-route.js';
import { presentSession } from '../present.js';
import type { GatewayServices } from '../services.js';

declare module 'fastify' {
  interface FastifyRequest {
    watched?: SessionRow;
  }
}

export async function presentSessions(s: GatewayServices, rows: SessionRow[]): Promise<Schemas['Session'][]> {
  const devices = new Map((await devicesByIds(s.db, [...new Set(rows.map((r) => r.device_id).filter((id): id is string => id !== null))])).map((d) => [d.id, d]));
  return Promise.all(rows.map(async (r) => presentSession(r, r.device_id ? devices.get(r.device_id) : undefined, await s.sessions.queuePlace(r))));
}

const presentOne = async (s: GatewayServices, row: SessionRow) => (await presentSessions(s, [row]))[0]!;

export function sessionRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'createSession', async (req, reply) => {
    const row = await s.sessions.create(principalOf(req), req.body, req.headers['idempotency-key'] as string | undefined);
    reply.code(row.state === 'ready' ? 201 : 202);
    return presentOne(s, row);
  });

  contractRoute(app, 'listSessions', async (req) => ({
    sessions: await presentSessions(s, await s.sessions.list(principalOf(req), req.query.state, req.query.limit ?? 100)),
  }));

  contractRoute(app, 'getSession', async (req) =>
    presentOne(s, await s.sessions.getAfterChange(principalOf(req), req.params.sessionId, req.query.wait ?? 0, req.query.ifState)),
  );

  contractRoute(app, 'renewSession', async (req) => presentOne(s, await s.sessions.renew(principalOf(req), req.params.sessionId, req.body?.ttlSeconds)));

  contractRoute(app, 'releaseSession', async (req) => presentOne(s, await s.sessions.release(principalOf(req), req.params.sessionId)));

  contractWebSocket(
    app,
    'watchSession',
    // Only someone who may act on the session keeps it alive by watching: a dashboard (viewer) watching
    // every session must not hold every device forever.
    (socket, req) => watch(s, socket, req.watched!, principalOf(req).role !== 'viewer'),
    async (req) => {
      req.watched = await s.sessions.get(principalOf(req), req.params.sessionId);
    },
  );
}

/** The session's event stream: its state now, then every change and expiry warning until it ends. */
function watch(s: GatewayServices, socket: WebSocket, initial: SessionRow, isActivity: boolean): void {
  let lastSeq = -1;
  let ending = false;
  const send = (event: Schemas['SessionEvent']) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(event));
  };
  const sendState = async () => {
    const row = await getSession(s.db, initial.id);
    if (!row || Number(row.event_seq) <= lastSeq) return;
    lastSeq = Number(row.event_seq);
    send({ type: 'session', seq: lastSeq, at: new Date().toISOString(), session: await presentOne(s, row) });
    if (row.state === 'ended' && !ending) {
      ending = true;
      socket.close(1000, 'SESSION_ENDED');
    }
  };
  const unsubscribe = s.events.subscribe(initial.id, (notice) => {
    if (notice?.kind === 'expiring' && notice.seq > lastSeq) {
      lastSeq = notice.seq;
      send({ type: 'expiring', seq: notice.seq, at: new Date().toISOString(), reason: notice.reason ?? 'idle', deadline: notice.deadline ?? new Date().toISOString() });
      return;
    }
    sendState().catch((err: unknown) => s.logger.warn({ err, sessionId: initial.id }, 'could not send a session event'));
  });
  // Watching is activity; a watcher that stops answering pings is dropped so it cannot keep a
  // session alive after its client has gone.
  const everyMs = Math.max(1000, Math.min(15000, (initial.idle_timeout_seconds * 1000) / 3));
  let answered = true;
  socket.on('pong', () => (answered = true));
  const keepAlive = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
    if (isActivity) void getSession(s.db, initial.id).then((row) => row && s.sessions.touch(row), () => undefined);
  }, everyMs);
  socket.on('close', () => {
    clearInterval(keepAlive);
    unsubscribe();
  });
  if (isActivity) s.sessions.touch(initial);
  sendState().catch((err: unknown) => s.logger.warn({ err, sessionId: initial.id }, 'could not send a session event'));
}
