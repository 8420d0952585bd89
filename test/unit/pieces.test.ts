import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { nextDeviceState } from '../../server/domain/hosts.js';
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
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(['one', 'two']);
    expect(closes).toEqual([['a', 4400, 'PROTOCOL_ERROR'], ['b', 4400, 'PROTOCOL_ERROR']]);
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

describe('device state from a report', () => {
  const report = (health: 'ready' | 'broken', reason?: string): Schemas['WorkerDevice'] => ({
    localId: 'd', platform: 'web', backend: 'fake', model: 'm', os: 'o', name: 'n', labels: [], health, ...(reason ? { reason } : {}),
  });

  it('makes a new or returning healthy device available', () => {
    expect(nextDeviceState(undefined, report('ready'))).toEqual({ state: 'available', reason: null });
    expect(nextDeviceState('offline', report('ready'))).toEqual({ state: 'available', reason: null });
    expect(nextDeviceState('broken', report('ready'))).toEqual({ state: 'available', reason: null });
  });

  it('leaves a leased device alone and marks a broken one with its reason', () => {
    expect(nextDeviceState('leased', report('ready'))).toEqual({ state: 'leased', reason: null });
    expect(nextDeviceState('leased', report('broken', 'browser crashed'))).toEqual({ state: 'broken', reason: 'browser crashed' });
  });
});
