import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { Schemas } from '../../../openapi/contract.js';
import { devicesByIds } from '../../db/repositories/devices.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { principalOf } from '../auth.js';
import { contractRoute, contractWebSocket } from '../contract-route.js';
import { presentSession } from '../present.js';
import { decodeCursor } from '../../domain/streams/cursor.js';
import { Outbox, OUTBOX_LIMITS } from '../../domain/streams/outbox.js';
import { SessionStream } from '../../domain/streams/session-stream.js';
import { ApiError } from '../../errors.js';
import { keepAlive } from '../keep-alive.js';
import type { GatewayServices } from '../services.js';

declare module 'fastify' {
  interface FastifyRequest {
    watched?: SessionRow;
  }
}

export async function presentSessions(s: GatewayServices, rows: SessionRow[]): Promise<Schemas['Session'][]> {
  const devices = new Map(
    (await devicesByIds(s.db, [...new Set(rows.map((r) => r.device_id).filter((id): id is string => id !== null))])).map((d) => [d.id, d]),
  );
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
    (socket, req) => watch(s, socket, req.watched!, principalOf(req).role !== 'viewer', req.query.since),
    async (req) => {
      req.watched = await s.sessions.get(principalOf(req), req.params.sessionId);
      const since = req.query.since;
      if (since !== undefined && decodeCursor(since).s > Number(req.watched.event_seq)) {
        throw new ApiError('VALIDATION_FAILED', {
          message: `since=${since} is ahead of this session's stream`,
          hint: 'pass the seq of the last event you received from this session',
          details: { field: 'since' },
        });
      }
    },
  );
}

/** The session's event stream: its state now, then every change, expiry warning and device event. */
function watch(s: GatewayServices, socket: WebSocket, initial: SessionRow, isActivity: boolean, since: number | undefined): void {
  const gauge = s.metrics.streamSubscribers.labels('session');
  gauge.inc();
  const out = new Outbox(socket, OUTBOX_LIMITS, () => s.metrics.streamCutOffs.inc({ stream: 'session', reason: 'backlog' }));
  const stream = new SessionStream(
    {
      db: s.db,
      events: s.events,
      taps: s.taps,
      present: (row) => presentOne(s, row),
      logger: s.logger,
      onEvent: () => s.metrics.streamEvents.inc({ stream: 'session' }),
    },
    initial.id,
    out,
    since,
    since === undefined ? undefined : decodeCursor(since),
  );
  // Watching is activity (for the session's own team); a watcher that stops answering pings is cut
  // off so it can neither keep a session alive nor hold a backlog after its client has gone.
  const everyMs = Math.max(1000, Math.min(15000, (initial.idle_timeout_seconds * 1000) / 3));
  const stopPings = keepAlive(
    socket,
    everyMs,
    () => {
      // The update itself only touches a session that is preparing or ready.
      if (isActivity) s.sessions.touch({ id: initial.id, state: 'ready' });
    },
    () => s.metrics.streamCutOffs.inc({ stream: 'session', reason: 'unanswered' }),
    s.timers,
  );
  socket.on('close', () => {
    gauge.dec();
    s.metrics.streamCoalesced.inc(out.merged);
    stopPings();
    stream.close();
  });
  if (isActivity) s.sessions.touch(initial);
  stream.start(initial);
}
