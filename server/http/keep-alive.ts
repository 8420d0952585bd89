// Pings a stream subscriber and cuts off one that stops answering: a client that has gone, or one
// that has stopped reading (a WebSocket answers pings only as it reads), must not hold a session
// alive or a backlog in memory. The close says why (4008 SLOW_CONSUMER); a socket that cannot even
// take the close frame is destroyed a little later.
import type { WebSocket } from 'ws';
import { SLOW_CONSUMER } from '../domain/streams/outbox.js';
import { every, systemTimers, type Timers } from '../timers.js';

const DESTROY_AFTER_MS = 5000;

export function keepAlive(socket: WebSocket, everyMs: number, onTick: () => void, onCutOff: () => void, timers: Timers = systemTimers): () => void {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const stop = every(timers, everyMs, () => {
    if (!answered) {
      stop();
      onCutOff();
      socket.close(SLOW_CONSUMER, 'SLOW_CONSUMER');
      timers.timeout(() => socket.terminate(), DESTROY_AFTER_MS);
      return;
    }
    answered = false;
    socket.ping();
    onTick();
  });
  return stop;
}
