// Two connected in-memory sockets with WebSocket semantics: ordered, asynchronous delivery,
// text frames, close codes and reasons, ping/pong. Lets a gateway and a worker in one process
// (`simfleet start`, unit tests) speak exactly the protocol they speak over the network.
import { EventEmitter } from 'node:events';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

export class MemorySocket extends EventEmitter {
  readyState = OPEN;
  peer!: MemorySocket;

  send(data: string): void {
    if (this.readyState !== OPEN) throw new Error('socket is not open');
    const peer = this.peer;
    setImmediate(() => {
      if (peer.readyState === OPEN || peer.readyState === CLOSING) peer.emit('message', Buffer.from(data), false);
    });
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState >= CLOSING) return;
    this.readyState = CLOSING;
    const peer = this.peer;
    // Like a real close handshake: the peer sees the frame after anything already sent.
    setImmediate(() => {
      this.finish(code, reason);
      peer.finish(code, reason);
    });
  }

  terminate(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    setImmediate(() => {
      this.finish(1006, '');
      this.peer.finish(1006, '');
    });
  }

  ping(): void {
    if (this.readyState !== OPEN) return;
    setImmediate(() => this.emit('pong'));
  }

  private finish(code: number, reason: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.emit('close', code, Buffer.from(reason));
  }
}

/** [gatewayEnd, workerEnd] */
export function createSocketPair(): [MemorySocket, MemorySocket] {
  const a = new MemorySocket();
  const b = new MemorySocket();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

export { CONNECTING, OPEN, CLOSING, CLOSED };
