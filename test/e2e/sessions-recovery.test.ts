// A host that answers too slowly: the prepare times out, the session is retried once on a
// recovered device and then fails with the reason; no device is left stuck.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFarm, type Farm } from '../helpers/farm.js';
import { waitFor } from '../helpers/wait.js';

let farm: Farm;
beforeAll(async () => {
  farm = await startFarm({ SIMFLEET_PREPARE_TIMEOUT_MS: '300', SIMFLEET_RESET_TIMEOUT_MS: '10000' });
  await farm.addWorker(1, { operationMs: 800 });
});
afterAll(() => farm?.stop());

describe('a prepare that never answers in time', () => {
  it('ends the session failed after two attempts, naming the timeout, and leaves the device recovered', async () => {
    const agent = await farm.token('agent', 'slow');
    let s = (await agent.call('createSession', { body: { platform: 'web', waitSeconds: 60 } })).body;
    while (s.state !== 'ended') s = (await agent.call('getSession', { params: { sessionId: s.id }, query: { wait: '10', ifState: s.state } })).body;
    expect(s.endReason).toBe('failed');
    expect(s.endDetail).toContain('COMMAND_TIMEOUT');
    const attempts = await farm.db.query<{ prepare_attempts: number }>(`SELECT prepare_attempts FROM sessions WHERE id = $1`, [s.id]);
    expect(attempts[0]!.prepare_attempts).toBe(2);
    // The device was not quarantined (the host was slow, not the device broken) and comes back.
    const id = `${farm.workers[0]!.worker.identity.id}.fake-1`;
    await waitFor(
      'device recovered',
      async () => ((await farm.admin.call('getDevice', { params: { deviceId: id } })).body.state === 'available' ? true : undefined),
      10_000,
    );
    const quarantines = await farm.db.query(`SELECT 1 FROM audit_log WHERE action = 'device.quarantine'`);
    expect(quarantines).toEqual([]);
  }, 30_000);
});
