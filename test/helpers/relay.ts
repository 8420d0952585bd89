// A TCP relay between a worker and the gateways, standing in for the network of a farm: it sends each
// new connection to the first gateway that accepts it (a load balancer's failover), and it can be cut.
// A cut is a partition, not a disconnect: nothing passes either way and neither side is told, as when
// a switch or a VPN drops packets. Connections whose far side closed during the cut are reset when
// the cut heals, as the first packet into a dead TCP connection would be.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Relay {
  /** http://<listenOn>:<port>: what the worker dials. */
  url: string;
  /** Stop all traffic (both ways, existing and new connections) until heal(). */
  cut(): void;
  heal(): void;
  /** Connections currently relayed. */
  open(): number;
  close(): Promise<void>;
}

interface Pair {
  down: Socket;
  up: Socket;
  held: { upstream: Buffer[]; downstream: Buffer[] };
  deadDuringCut: boolean;
}

/** `listenOn`: the address clients dial (loopback, or this side of a host's network namespace). */
export async function startRelay(targets: () => { host: string; port: number }[], listenOn = '127.0.0.1'): Promise<Relay> {
  let cut = false;
  const pairs = new Set<Pair>();
  const waiting: Socket[] = [];

  const dial = async (down: Socket): Promise<void> => {
    for (const t of targets()) {
      const up = await new Promise<Socket | null>((resolve) => {
        const s = connect(t.port, t.host);
        s.once('connect', () => resolve(s));
        s.once('error', () => resolve(null));
      });
      if (!up) continue;
      const pair: Pair = { down, up, held: { upstream: [], downstream: [] }, deadDuringCut: false };
      pairs.add(pair);
      down.on('data', (d: Buffer) => (cut ? pair.held.upstream.push(d) : up.write(d)));
      up.on('data', (d: Buffer) => (cut ? pair.held.downstream.push(d) : down.write(d)));
      const end = (other: Socket) => () => {
        if (cut) {
          pair.deadDuringCut = true;
          return;
        }
        pairs.delete(pair);
        other.destroy();
      };
      up.on('close', end(down));
      down.on('close', end(up));
      up.on('error', () => undefined);
      down.on('error', () => undefined);
      // Paused until now: what the client sent before the far side answered is not lost.
      down.resume();
      return;
    }
    down.destroy(); // no gateway answers: the client sees a refused/reset connection and redials
  };

  const server: Server = createServer({ pauseOnConnect: true }, (down) => {
    if (cut) {
      waiting.push(down);
      down.on('error', () => undefined);
      return;
    }
    void dial(down);
  });
  await new Promise<void>((r) => server.listen(0, listenOn, r));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://${listenOn}:${port}`,
    cut: () => {
      cut = true;
    },
    heal: () => {
      cut = false;
      for (const pair of [...pairs]) {
        if (pair.deadDuringCut || pair.up.destroyed || pair.down.destroyed) {
          pairs.delete(pair);
          pair.down.resetAndDestroy();
          pair.up.destroy();
          continue;
        }
        for (const d of pair.held.upstream.splice(0)) pair.up.write(d);
        for (const d of pair.held.downstream.splice(0)) pair.down.write(d);
      }
      for (const down of waiting.splice(0)) {
        if (down.destroyed) continue;
        void dial(down);
      }
    },
    open: () => pairs.size,
    close: async () => {
      for (const p of pairs) {
        p.up.destroy();
        p.down.destroy();
      }
      for (const w of waiting) w.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
