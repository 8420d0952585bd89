// One dedicated connection for LISTEN (a pooled connection cannot hold a LISTEN), reconnected
// with backoff when it drops, with every channel listened to again.
import type { Logger } from 'pino';

// What the listener needs of a connection: ListenClient satisfies it. Written out here so that
// server/db/postgres.ts stays the one module that imports pg, types included.
export interface ListenClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (n: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
}

export class PgListener {
  private client: ListenClient | undefined;
  private connecting: Promise<ListenClient> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnectListeners: (() => void)[] = [];
  private closed = false;
  private failures = 0;

  constructor(
    private readonly makeClient: () => ListenClient,
    private readonly logger: Logger,
  ) {}

  async listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    const client = await this.connect();
    if (first) await client.query(`LISTEN "${channel}"`);
    return async () => {
      set!.delete(handler);
      if (set!.size === 0) {
        this.handlers.delete(channel);
        await this.client?.query(`UNLISTEN "${channel}"`).catch(() => undefined);
      }
    };
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }

  private connect(): Promise<ListenClient> {
    if (this.client) return Promise.resolve(this.client);
    return (this.connecting ??= (async () => {
      const client = this.makeClient();
      client.on('notification', (n) => {
        for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? '');
      });
      client.on('error', (err) => this.logger.warn({ err: err.message }, 'postgres listener connection failed'));
      client.on('end', () => this.onEnd(client));
      try {
        await client.connect();
        for (const channel of this.handlers.keys()) await client.query(`LISTEN "${channel}"`);
      } catch (err) {
        this.connecting = undefined;
        await client.end().catch(() => undefined);
        throw err;
      }
      this.client = client;
      this.connecting = undefined;
      this.failures = 0;
      return client;
    })());
  }

  private onEnd(client: ListenClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.closed) return;
    const retry = () => {
      if (this.closed) return;
      this.connect().then(
        () => {
          this.logger.info('postgres listener reconnected');
          for (const l of this.reconnectListeners) l();
        },
        () => setTimeout(retry, Math.min(5000, 100 * 2 ** Math.min(this.failures++, 6))),
      );
    };
    setTimeout(retry, 100);
  }
}
