// A screen read on a host too busy to read its device's tree in time. The gateway waits 10 s for a
// read; soaks held to 0.8 of a core saw the tree alone take 9-14 s, and those reads ended as a bare
// 504 COMMAND_TIMEOUT while the worker went on reading for nobody. Now the worker answers a second
// before the gateway would give up, with a typed 503 HOST_OVERLOADED and a Retry-After, and the
// read goes on: the retry joins it instead of starting another as slow. The gateway and the worker
// are the real ones (in one process, over the in-memory protocol); the device is the fake, its tree
// read slowed as a starved host slows it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FakeProvider } from '../../workers/devices/fake/provider.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';

let farm: Farm;
let provider: FakeProvider;
beforeAll(async () => {
  // The host timeout is not what this is about: heartbeats go on while the tree is slow.
  farm = await startFarm({ SIMFLEET_HOST_TIMEOUT_MS: '5000' });
  provider = (await farm.addWorker(1)).provider;
});
afterAll(() => farm?.stop());

it('answers 503 HOST_OVERLOADED with Retry-After before the gateway times out, and the retry is answered from the read that went on', async () => {
  const agent = await farm.token('agent', 'busy');
  const sessionId = await settledSession(agent);
  const device = provider.device('fake-1')!;
  device.treeMs = 10_500; // longer than the gateway's 10 s
  const t0 = performance.now();
  const refused = await agent.call('getScreen', { params: { sessionId } });
  const refusedAfter = performance.now() - t0;
  expect(refused.status).toBe(503);
  expect(refused.body.error).toMatchObject({ code: 'HOST_OVERLOADED', details: { waitedMs: 9000, retryAfterMs: 1000 } });
  expect(refused.body.error.hint).toMatch(/ask again/);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refusedAfter).toBeGreaterThanOrEqual(8900);
  expect(refusedAfter).toBeLessThan(10_000);
  // The retry: the read begun for the refused call ends 1.5 s later and answers this one.
  device.treeMs = 0;
  const answered = await agent.call('getScreen', { params: { sessionId }, headers: { accept: 'application/json' } });
  expect(answered.status).toBe(200);
  expect(performance.now() - t0).toBeLessThan(10_500 + 2000);
  expect(answered.body.read.sessionTreeReads).toBe(1); // the one read, not a second
  // Counted on the host's strain, which /metrics shows.
  const hostId = farm.workers[0]!.worker.identity.id;
  const line = new RegExp(`^simfleet_worker_strain_total\\{host="${hostId}",kind="reads_overdue"\\} (\\d+)$`, 'm');
  const count = await waitFor('the overdue read in /metrics', async () => line.exec((await farm.admin.call('getMetrics')).text)?.[1], 5000);
  expect(count).toBe('1');
}, 40_000);
