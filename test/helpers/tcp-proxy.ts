// A TCP proxy for cutting one process off from a server (Postgres) and restoring it, without
// touching the server other tests share: cut() drops every connection and refuses new ones.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Proxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<Proxy> {
  let up = true;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!up) return void client.destroy();
    const upstream = connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      up = false;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
