import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import type { Schemas } from '../../openapi/contract.js';
import type { DeviceRow } from '../../server/db/repositories/devices.js';
import type { SessionRow } from '../../server/db/repositories/sessions.js';
import { decideDevice } from '../../server/domain/hosts.js';
import { createSocketPair } from '../../server/hub/memory-socket.js';
import { Backoff } from '../../workers/connection/backoff.js';

describe('backoff', () => {
  it('grows exponentially up to its ceiling, with jitter inside the bounds, and resets', () => {
    const top = new Backoff(100, 1000, () => 1);
    expect([top.next(), top.next(), top.next(), top.next(), top.next(), top.next()]).toEqual([100, 200, 400, 800, 1000, 1000]);
    top.reset();
    expect(top.next()).toBe(100);
    const bottom = new Backoff(100, 1000, () => 0);
    expect([bottom.next(), bottom.next(), bottom.next()]).toEqual([50, 50, 50]);
  });
});

describe('in-memory socket pair', () => {
  it('delivers text in order, asynchronously, and a close code and reason to both ends', async () => {
    const [a, b] = createSocketPair();
    const got: string[] = [];
    b.on('message', (d: Buffer) => got.push(d.toString()));
    a.send('one');
    a.send('two');
    expect(got).toEqual([]); // never synchronous, like a real socket
    const closes: [string, number, string][] = [];
    a.on('close', (c: number, r: Buffer) => closes.push(['a', c, r.toString()]));
    b.on('close', (c: number, r: Buffer) => closes.push(['b', c, r.toString()]));
    a.close(4400, 'PROTOCOL_ERROR');
    await waitFor('both ends closed', () => closes.length === 2 || undefined, 1000, 1);
    expect(got).toEqual(['one', 'two']);
    expect(closes).toEqual([
      ['a', 4400, 'PROTOCOL_ERROR'],
      ['b', 4400, 'PROTOCOL_ERROR'],
    ]);
    expect(() => a.send('late')).toThrow(/not open/);
  });

  it('answers a ping and reports 1006 on terminate', async () => {
    const [a, b] = createSocketPair();
    const pong = new Promise((r) => a.on('pong', r));
    a.ping();
    await pong;
    const closed = new Promise<number>((r) => b.on('close', (c: number) => r(c)));
    a.terminate();
    expect(await closed).toBe(1006);
  });
});

describe('what the farm makes of a device report', () => {
  const report = (health: 'ready' | 'broken', extra: Partial<Schemas['WorkerDevice']> = {}): Schemas['WorkerDevice'] => ({
    localId: 'd',
    platform: 'web',
    backend: 'fake',
    model: 'm',
    os: 'o',
    name: 'n',
    labels: [],
    health,
    ...extra,
  });
  const row = (over: Partial<DeviceRow>): DeviceRow =>
    ({
      id: 'h.d',
      host_id: 'h',
      local_id: 'd',
      platform: 'web',
      backend: 'fake',
      model: 'm',
      os: 'o',
      name: 'n',
      labels: [],
      health: 'ready',
      reported: true,
      state: 'available',
      state_reason: null,
      epoch: 3,
      session_id: null,
      needs_reset: false,
      quarantined: false,
      first_seen_at: new Date(),
      updated_at: new Date(),
      ...over,
    }) as DeviceRow;
  const session = { id: 'ses_1', state: 'ready' } as SessionRow;

  it('makes a new or returning clean device available', () => {
    expect(decideDevice(undefined, report('ready'), undefined)).toMatchObject({ state: 'available', reclaim: false });
    expect(decideDevice(row({ state: 'offline' }), report('ready'), undefined)).toMatchObject({ state: 'available', reclaim: false });
  });

  it('resets a device that may hold a previous session before anyone gets it', () => {
    expect(decideDevice(row({ state: 'offline', needs_reset: true }), report('ready'), undefined)).toMatchObject({ state: 'reclaiming', reclaim: true });
    expect(decideDevice(row({ state: 'available' }), report('ready', { lease: { epoch: 2, sessionId: 'ses_old' } }), undefined)).toMatchObject({
      reclaim: true,
    });
  });

  it('re-adopts a lease the worker still holds under the same epoch', () => {
    const d = decideDevice(row({ state: 'leased', session_id: 'ses_1' }), report('ready', { lease: { epoch: 3, sessionId: 'ses_1' } }), session);
    expect(d).toMatchObject({ state: 'leased', reclaim: false });
    expect(d.endSession).toBeUndefined();
  });

  it('does not take a report sent before the prepare arrived for a lost lease', () => {
    const preparing = { id: 'ses_1', state: 'preparing' } as SessionRow;
    const d = decideDevice(row({ state: 'preparing', session_id: 'ses_1' }), report('ready', { lease: null }), preparing);
    expect(d).toMatchObject({ state: 'preparing', reclaim: false });
    expect(d.endSession).toBeUndefined();
    expect(
      decideDevice(row({ state: 'preparing', session_id: 'ses_1' }), report('ready', { lease: { epoch: 2, sessionId: 'ses_old' } }), preparing).endSession,
    ).toBeUndefined();
  });

  it('ends the session device-lost when the worker no longer holds its lease', () => {
    const d = decideDevice(row({ state: 'leased', session_id: 'ses_1' }), report('ready', { lease: null }), session);
    expect(d).toMatchObject({ state: 'reclaiming', reclaim: true, endSession: { reason: 'device-lost' } });
    expect(decideDevice(row({ state: 'leased' }), report('ready', { lease: { epoch: 2, sessionId: 'ses_1' } }), session).endSession).toBeDefined();
  });

  it('keeps a quarantined device broken whatever its host says, and ends a session on a broken report', () => {
    expect(decideDevice(row({ state: 'broken', quarantined: true, state_reason: 'reset failed' }), report('ready'), undefined)).toMatchObject({
      state: 'broken',
      reason: 'reset failed',
      reclaim: false,
    });
    expect(decideDevice(row({ state: 'leased' }), report('broken', { reason: 'renderer crashed' }), session)).toMatchObject({
      state: 'broken',
      endSession: { detail: 'renderer crashed' },
    });
  });
});
