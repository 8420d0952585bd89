import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../workers/devices/fake/provider.js';
import { LeaseKeeper } from '../../workers/devices/leases.js';

const setup = () => {
  const provider = new FakeProvider(1, { operationMs: 1 });
  const keeper = new LeaseKeeper((id) => provider.device(id), 1000, pino({ level: 'silent' }));
  return { provider, keeper, device: provider.device('fake-1')! };
};
const prepare = (epoch: number, sessionId = `ses_${epoch}`) => ({
  type: 'prepare' as const,
  id: 'c',
  localId: 'fake-1',
  epoch,
  sessionId,
  app: null,
  origins: { allowedOrigins: ['*'], allowPrivate: false },
});
const reset = (epoch: number) => ({ type: 'reset' as const, id: 'c', localId: 'fake-1', epoch });

describe('the worker lease fence', () => {
  it('records the lease a prepare grants, and drops it on reset', async () => {
    const { keeper } = setup();
    await keeper.handle(prepare(1));
    expect(keeper.leaseOf('fake-1')).toEqual({ epoch: 1, sessionId: 'ses_1' });
    await keeper.handle(reset(2));
    expect(keeper.leaseOf('fake-1')).toBeNull();
  });

  it('refuses a prepare or reset under an older epoch with STALE_LEASE, leaving the device alone', async () => {
    const { keeper, device } = setup();
    await keeper.handle(prepare(5));
    const resetsBefore = device.resets;
    await expect(keeper.handle(reset(4))).rejects.toMatchObject({ code: 'STALE_LEASE' });
    await expect(keeper.handle(prepare(5, 'ses_other'))).rejects.toMatchObject({ code: 'STALE_LEASE' });
    expect(device.resets).toBe(resetsBefore);
    expect(keeper.leaseOf('fake-1')).toEqual({ epoch: 5, sessionId: 'ses_5' });
  });

  it('runs one device’s commands in order, one at a time', async () => {
    const { keeper, device } = setup();
    const done: string[] = [];
    await Promise.all([
      keeper.handle(prepare(1)).then(() => done.push('p1')),
      keeper.handle(reset(2)).then(() => done.push('r2')),
      keeper.handle(prepare(3)).then(() => done.push('p3')),
    ]);
    expect(done).toEqual(['p1', 'r2', 'p3']);
    expect([device.prepares, device.resets]).toEqual([2, 1]);
  });

  it('answers NOT_FOUND for a device this host does not have, and DEVICE_FAILED with the reason for a failing one', async () => {
    const { keeper, device } = setup();
    await expect(keeper.handle({ ...prepare(1), localId: 'fake-9' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    device.failReset = 'profile locked';
    await expect(keeper.handle(reset(1))).rejects.toMatchObject({ code: 'DEVICE_FAILED', message: 'profile locked' });
  });

  it('gives up on an operation that ignores its time limit, and the device’s next command still runs', async () => {
    const provider = new FakeProvider(1, { operationMs: 1 });
    const device = provider.device('fake-1')!;
    const keeper = new LeaseKeeper((id) => provider.device(id), 200, pino({ level: 'silent' }));
    // A reset that never returns and does not listen to its signal (a wedged browser call).
    const realReset = device.reset.bind(device);
    device.reset = () => new Promise<void>(() => undefined);
    const t0 = Date.now();
    await expect(keeper.handle(reset(1))).rejects.toMatchObject({ code: 'COMMAND_TIMEOUT' });
    expect(Date.now() - t0).toBeLessThan(2000);
    device.reset = realReset;
    await keeper.handle(reset(2));
    expect(device.resets).toBe(1);
  });
});
