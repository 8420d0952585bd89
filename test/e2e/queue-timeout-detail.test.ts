// A request that waited for a device and got none says what holds the devices (issue 40): how
// many are held, by how many sessions, and when the first of the caller's own team's ends. In-process
// farm (real Postgres, real HTTP); the CLI is the built one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { api } from '../helpers/api.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { killAll, spawnSimfleet } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

type Client = ReturnType<typeof api>;
let farm: Farm;
let alpha: Client;
let beta: Client;
let held: { id: string; expiresAt: string };

beforeAll(async () => {
  farm = await startFarm();
  await farm.addWorker(1);
  alpha = await farm.token('agent', 'alpha');
  beta = await farm.token('agent', 'beta');
  const created = await alpha.call('createSession', { body: { platform: 'web' } });
  held = await waitFor('the first session ready', async () => {
    const s = (await alpha.call('getSession', { params: { sessionId: created.body.id } })).body;
    return s.state === 'ready' ? s : undefined;
  });
});
afterAll(async () => {
  await killAll();
  await farm?.stop();
});

async function timedOut(client: Client, waitSeconds: number) {
  const created = await client.call('createSession', { body: { platform: 'web', waitSeconds } });
  return waitFor('queue-timeout', async () => {
    const s = (await client.call('getSession', { params: { sessionId: created.body.id } })).body;
    return s.state === 'ended' ? s : undefined;
  });
}

describe('a request that found every device held', () => {
  it("tells its team how many devices are held, by how many sessions, and when the team's own first one ends", async () => {
    const s = await timedOut(alpha, 1);
    expect(s.endReason).toBe('queue-timeout');
    expect(s.endDetail).toBe(
      `no matching device became free within waitSeconds: 1 of 1 web device that fit is held by 1 session; the first of your team's ends by ${held.expiresAt} (${held.id}) unless renewed`,
    );
  });

  it("names no other team's session or its expiry (waitSeconds 0)", async () => {
    const s = await timedOut(beta, 0);
    expect(s.endDetail).toBe("waitSeconds is 0 and no matching device was free: 1 of 1 web device that fit is held by 1 session; none of them is your team's");
  });

  it('simfleet session new prints the same, not just "ended"', async () => {
    const p = spawnSimfleet(['session', 'new', '--wait', '1'], { SIMFLEET_URL: farm.gateway.url, SIMFLEET_TOKEN: beta.token! });
    expect((await p.exited(30_000)).code).toBe(1);
    expect(p.stderr()).toMatch(
      /^simfleet: SESSION_ENDED: session ses_\w+ ended before it was ready: queue-timeout \(.*held by 1 session; none of them is your team's\)/,
    );
  });
});
