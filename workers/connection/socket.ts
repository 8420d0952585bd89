// What the worker needs of its connection to the gateway: the part of a `ws` WebSocket it uses.
// The in-process worker of `simfleet start` is handed an in-memory socket with the same shape.
export interface GatewaySocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'message', listener: (data: Buffer | string, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
}

/** Opens one connection to the gateway, or fails with a DialError. */
export type Dial = () => Promise<GatewaySocket>;

export const OPEN = 1;

export class DialError extends Error {
  override readonly name = 'DialError';
  constructor(
    /** The gateway's error code, or UNREACHABLE when no HTTP answer came back. */
    readonly code: string,
    message: string,
    readonly hint: string | undefined,
    /** Retrying cannot help: the token is wrong or the versions differ. */
    readonly fatal: boolean,
  ) {
    super(message);
  }
}
