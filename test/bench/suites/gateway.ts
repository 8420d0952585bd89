// The gateway's own cost. A gateway on Postgres and a worker with one fake device, joined over a real
// WebSocket on loopback, in this process. Added latency: one command (changed since a mark) asked of
// the worker's handler directly and through the gateway (HTTP, token check, session lookup, the
// worker link and back), alternately, pair by pair, so both see the same machine at the same moment;
// the figure is the median of the per-pair differences. Requests per second for cheap reads come
// from a load client in a process of its own, so the gateway is not measured against its own client.
import { fork } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { FakeProvider } from '../../../workers/devices/fake/provider.js';
import { loadWorkerConfig, startWorker } from '../../../workers/index.js';
import { startFarm } from '../../helpers/farm.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { summarise, type Figure, type Suite } from '../harness.js';

const S = 'gateway';
const PAIRS = 2000;
const LOAD = new URL('../load-client.mjs', import.meta.url).pathname;

export const gatewaySuite: Suite = {
  name: 'gateway',
  describe: 'added latency of a command through the gateway vs asked of the worker directly, requests per second for cheap reads',
  async run(): Promise<Figure[]> {
    const farm = await startFarm({ SIMFLEET_HOST_TIMEOUT_MS: '5000' });
    const provider = new FakeProvider(1, { operationMs: 1, platform: 'web' });
    const workerToken = (await farm.admin.call('createToken', { body: { name: 'bench worker', role: 'worker', team: 'default' } })).body.secret as string;
    const worker = await startWorker(
      loadWorkerConfig({
        SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-benchw-')),
        SIMFLEET_GATEWAY_URL: farm.gateway.url,
        SIMFLEET_WORKER_TOKEN: workerToken,
        SIMFLEET_HOST_ID: 'bench-host',
      }),
      { version: 'bench', logger: pino({ level: 'silent' }), providers: [provider] },
    );
    const figures: Figure[] = [];
    try {
      await worker.registered();
      const agent = await farm.token('agent', 'default');
      const session = (await agent.call('createSession', { body: { platform: 'web', ttlSeconds: 900 } })).body;
      const ready = await waitFor(
        'session ready',
        async () => {
          const s = (await agent.call('getSession', { params: { sessionId: session.id } })).body;
          return s.state === 'ready' ? s : undefined;
        },
        20_000,
      );
      const localId = provider.device('fake-1')!.localId;
      const mark = (await agent.call('createMark', { params: { sessionId: ready.id } })).body.mark as string;
      provider.device('fake-1')!.showScreen('settings');
      await sleep(300);

      const direct: number[] = [];
      const through: number[] = [];
      const added: number[] = [];
      const alone: number[] = [];
      for (let i = 0; i < PAIRS; i++) {
        const a = performance.now();
        await worker.perception.call(localId, ready.epoch, 'perception.changes', { since: mark });
        const b = performance.now();
        const res = await agent.call('getChanges', { params: { sessionId: ready.id }, query: { since: mark } });
        const c = performance.now();
        if (res.status !== 200) throw new Error(`GET /changes answered ${res.status}: ${res.text.slice(0, 200)}`);
        await agent.call('getSession', { params: { sessionId: ready.id } });
        const d = performance.now();
        if (i < 100) continue; // warm-up: JIT, pooled connections
        alone.push(d - c);
        direct.push(b - a);
        through.push(c - b);
        added.push(c - b - (b - a));
      }
      figures.push(summarise(S, 'changed since mark, asked of the worker directly (its handler, no network)', 'ms', direct));
      figures.push(
        summarise(S, 'changed since mark through the gateway (GET /changes: HTTP, token, session, WebSocket to the worker and back)', 'ms', through),
      );
      figures.push(summarise(S, '  beside it: GET /v1/sessions/{id}, answered by the gateway and Postgres alone (HTTP, token, one read)', 'ms', alone));
      figures.push(
        summarise(S, 'added latency of a command through the gateway, per pair', 'ms', added, {
          goal: 'p50 ≤ 2 ms',
          note: 'client, gateway and worker share one process here; the load figures below use a separate client',
        }),
      );

      // Requests per second: a read the gateway answers alone, and one it forwards to the worker.
      const base = farm.gateway.url;
      for (const [name, path] of [
        ['GET /v1/sessions/{id} (the gateway and Postgres alone)', `/v1/sessions/${ready.id}`],
        ['GET /v1/sessions/{id}/changes (forwarded to the worker)', `/v1/sessions/${ready.id}/changes?since=${mark}`],
      ] as const) {
        const runs = [];
        for (let r = 0; r < 3; r++) runs.push(await load(`${base}${path}`, agent.token!, 32, 4000));
        const failed = runs.reduce((n, x) => n + x.failed, 0);
        figures.push(
          summarise(
            S,
            `requests per second, ${name}, 32 connections`,
            'req/s',
            runs.map((x) => x.perSecond),
            { ...(failed ? { note: `${failed} non-200 answers` } : {}) },
          ),
        );
        figures.push(
          summarise(
            S,
            `  latency under that load, ${name}`,
            'ms',
            runs.flatMap((x) => x.latencies),
          ),
        );
      }
    } finally {
      await worker.stop();
      await farm.stop();
    }
    return figures;
  },
};

interface LoadResult {
  perSecond: number;
  failed: number;
  latencies: number[];
}

/** Runs the load client in a child process: `connections` keep-alive loops for `ms`. */
function load(url: string, token: string, connections: number, ms: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD, [url, token, String(connections), String(ms)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load client exited ${code}`)));
  });
}
