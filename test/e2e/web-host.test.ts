// The web backend as a host runs it: without a usable browser the worker still starts and says
// how to fix it; with one, Chromium does not outlive a worker that is killed.
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { killAll, startGatewayProcess, startWorkerProcess, TEST_ADMIN_TOKEN, type GatewayProcess } from '../helpers/processes.js';
import { sleep, waitFor } from '../helpers/wait.js';

let db: TestDatabase;
let gateway: GatewayProcess;
let workerToken: string;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startGatewayProcess({ DATABASE_URL: db.url });
  workerToken = (await api(gateway.url, TEST_ADMIN_TOKEN).call('createToken', { body: { name: 'w', role: 'worker', team: 'default' } })).body.secret;
});
afterAll(async () => {
  await killAll();
  await db?.drop();
});

const worker = async (env: Record<string, string>) =>
  startWorkerProcess({
    SIMFLEET_GATEWAY_URL: gateway.url,
    SIMFLEET_WORKER_TOKEN: workerToken,
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-webhost-')),
    ...env,
  });

/** Chromium processes whose parent chain leads to pid. */
function descendants(pid: number): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,comm=']).toString();
  const rows = out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .map(([p, pp, c]) => ({ pid: Number(p), ppid: Number(pp), comm: c ?? '' }));
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const r of rows.filter((x) => x.ppid === parent)) {
      found.push(r.pid);
      walk(r.pid);
    }
  };
  walk(pid);
  return found.filter((p) => rows.find((r) => r.pid === p)!.comm.includes('chrom'));
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the web backend on a host', () => {
  it('without a browser: the worker starts, and the gateway shows the backend unavailable with how to install one', async () => {
    const w = await worker({ SIMFLEET_WEB_DEVICES: 'iphone-15', SIMFLEET_CHROMIUM: '/nonexistent/chrome' });
    const hostId = w.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
    const host = (await api(gateway.url, TEST_ADMIN_TOKEN).call('getHost', { params: { hostId } })).body;
    expect(host.backends).toEqual([
      expect.objectContaining({
        backend: 'web',
        available: false,
        detail: expect.stringContaining('/nonexistent/chrome'),
        hint: expect.stringContaining('apt-get install -y chromium'),
      }),
    ]);
    expect(host.deviceCount).toBe(0);
  });

  it('with one: the host offers as many web devices as it has slots; Chromium runs under the worker and exits when the worker is killed', async () => {
    const w = await worker({ SIMFLEET_WEB_DEVICES: 'iphone-15:2' });
    const hostId = w.logs.find((l) => l.msg === 'registered with the gateway')!.hostId as string;
    const listed = async (): Promise<{ platform: string; model: string; localId: string; state: string }[]> =>
      (await api(gateway.url, TEST_ADMIN_TOKEN).call('listDevices', { query: { hostId } })).body.devices;
    // Waits for two; a third would still fail the count below.
    const devices = await waitFor(
      'two devices available',
      async () => {
        const all = await listed();
        return all.length >= 2 && all.every((d) => d.state === 'available') ? all : undefined;
      },
      20_000,
    );
    expect(devices.map((d) => [d.platform, d.model, d.localId]).sort()).toEqual([
      ['web', 'iPhone 15 (web)', 'web-1'],
      ['web', 'iPhone 15 (web)', 'web-2'],
    ]);
    // What the pages hold in Chromium's renderers comes with the heartbeats: the two sample apps'
    // heaps and DOMs, read over DevTools (a host without pages reports none: worker-liveness).
    const page = (kind: string) => new RegExp(`^simfleet_worker_held\\{host="${hostId}",kind="page_${kind}"\\} (\\d+)$`, 'm');
    const held = await waitFor(
      "the pages' memory in /metrics",
      async () => {
        const text = (await api(gateway.url, TEST_ADMIN_TOKEN).call('getMetrics')).text;
        return page('js_heap_bytes').test(text) ? text : undefined;
      },
      20_000,
    );
    expect(Number(page('js_heap_bytes').exec(held)![1])).toBeGreaterThan(2 * 100_000);
    expect(Number(page('dom_nodes').exec(held)![1])).toBeGreaterThan(2 * 50);
    expect(Number(page('event_listeners').exec(held)![1])).toBeGreaterThan(0);
    const chromium = descendants(w.proc.pid!);
    expect(chromium.length).toBeGreaterThan(0);
    w.kill('SIGKILL');
    await waitFor('chromium gone', () => chromium.every((p) => !alive(p)) || undefined, 10_000);
    await sleep(100);
  });
});
