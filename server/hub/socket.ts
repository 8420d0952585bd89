// What the hub needs of a connection: the part of a `ws` WebSocket it uses. The in-process
// worker of `simfleet start` speaks the same protocol over memory-socket.ts instead.
export interface WorkerSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  on(event: 'message', listener: (data: Buffer | string, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  on(event: 'pong', listener: () => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  off(event: 'pong' | 'message', listener: () => void): this;
}

export const OPEN = 1;
