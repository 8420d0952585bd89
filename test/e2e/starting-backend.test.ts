// A session asked for while the only backend of its platform is still starting (a browser
// launching) waits in the queue and is placed once the devices come; with no such backend it is
// refused at once. In-process farm: real Postgres, real HTTP, the worker protocol over memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../workers/devices/fake/provider.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { waitFor } from '../helpers/wait.js';

let farm: Farm;
const android = new FakeProvider(1, { platform: 'android' });

beforeAll(async () => {
  farm = await startFarm({ SIMFLEET_CREATE_WAIT_MS: '200' });
  android.setStarting(true);
  await farm.addWorkerWith([android]);
});
afterAll(() => farm?.stop());

describe('a platform whose backend on a connected host is still starting', () => {
  it('queues the request, and places it once the backend reports its devices', async () => {
    const created = await farm.admin.call('createSession', { body: { platform: 'android', waitSeconds: 60 } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.state).toBe('queued');

    android.setStarting(false);
    const ready = await waitFor('the session ready', async () => {
      const s = (await farm.admin.call('getSession', { params: { sessionId: created.body.id } })).body;
      return s.state === 'ready' ? s : undefined;
    });
    expect(ready.device.platform).toBe('android');
  });

  it('still refuses at once a platform no host offers or is starting', async () => {
    const refused = await farm.admin.call('createSession', { body: { platform: 'ios' } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('NO_MATCHING_DEVICE');
  });
});
