// Placement keeps new sessions off a host that cannot keep up with its devices. A soak on a
// starved host saw screen reads take 9-14 s; before this, placement took the first free device by
// id whatever its host was going through. Now a heartbeat whose signs of strain rose (a read over
// 5 s here) marks the host, every gateway's placement reads the mark from Postgres, and for five
// minutes the host gets new sessions only when no other host has a device that fits. The gateway
// and two workers are the real ones, in one process; the devices are fakes, one slowed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFarm, type Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';

let farm: Farm;
beforeAll(async () => {
  // Heartbeats go on while a tree read is slow; the host timeout is not what this is about.
  farm = await startFarm({ SIMFLEET_HOST_TIMEOUT_MS: '8000' });
  await farm.addWorker(1);
  await farm.addWorker(1);
});
afterAll(() => farm?.stop());

const hostOf = async (agent: Awaited<ReturnType<Farm['token']>>, sessionId: string) =>
  (await agent.call('getSession', { params: { sessionId } })).body.host as string;

it('places new sessions on another host while one shows strain, and on the strained one only when nothing else fits', async () => {
  const agent = await farm.token('agent', 'busy');
  // Both hosts idle and unstrained: the first session goes to the device first by id.
  const first = await settledSession(agent);
  const strainedHost = await hostOf(agent, first);
  const slowed = farm.workers.find((w) => w.worker.identity.id === strainedHost)!;
  const otherHost = farm.workers.find((w) => w !== slowed)!.worker.identity.id;
  // Its host slows: one screen read takes 5.5 s, over the slow-read mark.
  slowed.provider.device('fake-1')!.treeMs = 5500;
  expect((await agent.call('getScreen', { params: { sessionId: first }, headers: { accept: 'application/json' } })).status).toBe(200);
  slowed.provider.device('fake-1')!.treeMs = 0;
  const marked = await waitFor(
    'the host marked strained',
    async () => {
      const hosts = (await farm.admin.call('listHosts')).body.hosts as { id: string; strainedAt: string | null }[];
      return hosts.find((h) => h.id === strainedHost)?.strainedAt ? hosts : undefined;
    },
    5000,
  );
  expect(marked.find((h) => h.id === otherHost)!.strainedAt).toBeNull();
  // The session ends and its device comes back: both hosts idle again, the strained one first by id.
  await agent.call('releaseSession', { params: { sessionId: first } });
  await waitFor(
    'both devices available',
    async () => ((await farm.admin.call('listDevices')).body.devices.filter((d: { state: string }) => d.state === 'available').length === 2 ? true : undefined),
    10_000,
  );
  const second = await settledSession(agent);
  expect(await hostOf(agent, second)).toBe(otherHost);
  // With the other host's device taken, the strained host still serves.
  const third = await settledSession(agent);
  expect(await hostOf(agent, third)).toBe(strainedHost);
  // /metrics says how many hosts placement is keeping sessions off, and why.
  const metrics = (await farm.admin.call('getMetrics')).text;
  expect(/^simfleet_hosts_strained (\d+)$/m.exec(metrics)?.[1]).toBe('1');
  const line = new RegExp(`^simfleet_worker_strain_total\\{host="${strainedHost}",kind="slow_reads"\\} (\\d+)$`, 'm');
  expect(line.exec(metrics)?.[1]).toBe('1');
}, 60_000);
