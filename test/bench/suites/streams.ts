// Streams: how fast a device event reaches many subscribers. A gateway with a real Postgres and a
// fake-device worker; 500 subscribers on one session's event stream in a process of their own (so
// the figure is the gateway's fan-out, not this process parsing 500 sockets' messages); the fake
// device's screen is changed 20 times and each frame-change's arrival is timed from its `at`
// (stamped on the worker when the event was recorded) on every subscriber. One more subscriber
// that never reads is there throughout, as the slow consumer the others must not wait for.
import { WebSocket } from 'ws';
import { startCrowd } from '../../helpers/crowd.js';
import { startFarm } from '../../helpers/farm.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { summarise, type Figure, type Suite } from '../harness.js';

const SUBSCRIBERS = 500;
const CHANGES = 20;

export const streamsSuite: Suite = {
  name: 'streams',
  describe: 'frame-change fan-out to 500 subscribers of one session (one of them never reading)',
  async run(): Promise<Figure[]> {
    const farm = await startFarm();
    const { provider } = await farm.addWorker(1);
    const crowd = startCrowd();
    const ask = crowd.ask;
    try {
      const agent = await farm.token('agent', 'bench-streams');
      const session = (await agent.call('createSession', { body: { platform: 'web', ttlSeconds: 600 } })).body;
      if (session.state !== 'ready') throw new Error(`the session is ${session.state}, not ready`);
      const url = `${farm.gateway.url.replace('http', 'ws')}/v1/sessions/${session.id}/events`;
      await ask({ connect: { url, token: agent.token, n: SUBSCRIBERS } }, 'ready');
      const stalled = new WebSocket(url, { headers: { authorization: `Bearer ${agent.token}` } });
      await new Promise((r) => stalled.once('open', r));
      (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
      const device = provider.device('fake-1')!;
      for (let i = 0; i < CHANGES; i++) {
        device.showScreen(i % 2 ? 'home' : 'settings');
        await waitFor(`change ${i} everywhere`, async () => (await ask<number[]>({ count: true }, 'counts')).every((c) => c > i) || undefined, 10_000);
        await sleep(300);
      }
      const latencies = (await ask<number[][]>({ report: true }, 'latencies')).flatMap((l) => l.slice(0, CHANGES));
      await ask({ close: true }, 'closed');
      stalled.terminate();
      return [
        summarise(
          'streams',
          `frame-change fan-out to ${SUBSCRIBERS} subscribers of one session, worker event → subscriber (p95 column: read the p99 in the note)`,
          'ms',
          latencies,
          { goal: 'p99 ≤ 50 ms', note: `p99 ${p99(latencies)} ms over ${latencies.length} deliveries; one subscriber never read throughout` },
        ),
      ];
    } finally {
      crowd.kill();
      await farm.stop();
    }
  },
};

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)] ?? NaN;
}
