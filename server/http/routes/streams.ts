// The farm stream for dashboards and the live screen for people: the two WebSocket routes that
// are not about one session's events (those are in sessions.ts).
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { Schemas } from '../../../openapi/contract.js';
import * as devices from '../../db/repositories/devices.js';
import type { FarmEventRow } from '../../db/repositories/farm-events.js';
import * as hosts from '../../db/repositories/hosts.js';
import { activeSessions, getSession, queueDepthByPriority, type SessionRow } from '../../db/repositories/sessions.js';
import { FarmFeed, type FarmEvent } from '../../domain/streams/farm-feed.js';
import { FarmStream } from '../../domain/streams/farm-stream.js';
import { runLiveScreen } from '../../domain/streams/live-screen.js';
import { Outbox, OUTBOX_LIMITS } from '../../domain/streams/outbox.js';
import type { Principal } from '../../domain/tokens.js';
import { principalOf } from '../auth.js';
import { contractWebSocket } from '../contract-route.js';
import { keepAlive } from '../keep-alive.js';
import { presentDevice, presentHost } from '../present.js';
import type { GatewayServices } from '../services.js';
import { presentSessions } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    liveSession?: SessionRow;
  }
}

const PING_MS = 15_000;

export function streamRoutes(app: FastifyInstance, s: GatewayServices): void {
  const feed = new FarmFeed(s.db, (row) => presentFarmEvent(s, row), s.logger.child({ component: 'farm-stream' }));
  app.addHook('onReady', () => feed.start());
  app.addHook('onClose', () => feed.stop());

  contractWebSocket(app, 'watchFarm', (socket, req) => watchFarm(s, feed, socket, principalOf(req), req.query.since));

  contractWebSocket(
    app,
    'watchScreen',
    (socket, req) => {
      const gauge = s.metrics.streamSubscribers.labels('screen');
      gauge.inc();
      const stopPings = keepAlive(
        socket,
        PING_MS,
        () => undefined,
        () => s.metrics.streamCutOffs.inc({ stream: 'screen', reason: 'unanswered' }),
        s.timers,
      );
      const stop = runLiveScreen({ perception: s.perception, db: s.db, logger: s.logger }, req.liveSession!, socket, {
        fps: req.query.fps ?? 15,
        quality: req.query.quality ?? 75,
        scale: req.query.scale ?? 0.5,
      });
      socket.on('close', () => {
        gauge.dec();
        stopPings();
        stop();
      });
    },
    async (req) => {
      req.liveSession = await s.sessions.get(principalOf(req), req.params.sessionId);
    },
  );
}

function watchFarm(s: GatewayServices, feed: FarmFeed, socket: WebSocket, principal: Principal, since: number | undefined): void {
  const gauge = s.metrics.streamSubscribers.labels('farm');
  gauge.inc();
  const out = new Outbox(socket, OUTBOX_LIMITS, () => s.metrics.streamCutOffs.inc({ stream: 'farm', reason: 'backlog' }));
  const stream = new FarmStream(
    {
      feed,
      visible: (row) => row.kind !== 'session' || principal.role === 'admin' || row.team === principal.team,
      snapshot: () => snapshot(s, principal),
      onError: (err) => s.logger.warn({ err }, 'farm stream failed'),
    },
    out,
  );
  const stopPings = keepAlive(
    socket,
    PING_MS,
    () => undefined,
    () => s.metrics.streamCutOffs.inc({ stream: 'farm', reason: 'unanswered' }),
    s.timers,
  );
  socket.on('close', () => {
    gauge.dec();
    stopPings();
    stream.close();
  });
  stream.start(since);
}

async function snapshot(s: GatewayServices, principal: Principal): Promise<Omit<Schemas['FarmSnapshotEvent'], 'type' | 'seq' | 'at'>> {
  const team = principal.role === 'admin' ? null : principal.team;
  const active = await activeSessions(s.db, team);
  return {
    hosts: (await hosts.listHosts(s.db, {})).map(presentHost),
    devices: (await devices.listDevices(s.db, {})).map(presentDevice),
    sessions: await presentSessions(s, active),
    queue: await queueDepth(s),
  };
}

async function queueDepth(s: GatewayServices): Promise<Schemas['QueueDepth']> {
  const byPriority = { interactive: 0, ci: 0, background: 0 };
  for (const r of await queueDepthByPriority(s.db)) if (r.priority in byPriority) byPriority[r.priority as keyof typeof byPriority] = Number(r.n);
  return { depth: byPriority.interactive + byPriority.ci + byPriority.background, byPriority };
}

/** A log row as the event subscribers get: the thing's state now (the log says only what changed). */
async function presentFarmEvent(s: GatewayServices, row: FarmEventRow): Promise<FarmEvent | undefined> {
  const base = { seq: row.seq, at: new Date(row.at).toISOString() };
  switch (row.kind) {
    case 'host': {
      const h = await hosts.getHost(s.db, row.subject);
      return h && { type: 'host', ...base, host: presentHost(h) };
    }
    case 'device':
    case 'quarantine': {
      const d = await devices.getDevice(s.db, row.subject);
      if (!d) return undefined;
      return row.kind === 'device'
        ? { type: 'device', ...base, device: presentDevice(d) }
        : { type: 'quarantine', ...base, device: presentDevice(d), quarantined: d.quarantined };
    }
    case 'session': {
      const r = await getSession(s.db, row.subject);
      return r && { type: 'session', ...base, session: (await presentSessions(s, [r]))[0]! };
    }
    case 'queue':
      return { type: 'queue', ...base, queue: await queueDepth(s) };
  }
}
