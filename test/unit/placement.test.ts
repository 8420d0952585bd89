import { describe, expect, it } from 'vitest';
import { effectiveClass, plan, type FreeDevice, type QueuedRequest, type TeamUsage } from '../../server/domain/sessions/placement.js';

const AGING = 60_000;
const NOW = 10_000_000;
const req = (id: string, over: Partial<QueuedRequest> = {}): QueuedRequest => ({
  id,
  team: 't',
  priority: 'ci',
  createdAtMs: NOW - 1000,
  platform: 'web',
  requirements: {},
  ...over,
});
const dev = (id: string, over: Partial<FreeDevice> = {}): FreeDevice => ({ id, platform: 'web', model: 'Pixel', os: '14', labels: [], ...over });
const teams = (entries: Record<string, Partial<TeamUsage>>) =>
  new Map(Object.entries(entries).map(([k, v]) => [k, { weight: 1, quota: null, active: 0, recent: 0, ...v }]));

describe('placement policy', () => {
  it('places interactive before ci before background, then oldest first', () => {
    const out = plan(
      [
        req('bg', { priority: 'background', createdAtMs: NOW - 5000 }),
        req('ci-new', { createdAtMs: NOW - 10 }),
        req('ci-old', { createdAtMs: NOW - 20 }),
        req('int', { priority: 'interactive', createdAtMs: NOW - 1 }),
      ],
      [dev('d1'), dev('d2'), dev('d3')],
      teams({}),
      NOW,
      AGING,
    );
    expect(out.map((a) => a.sessionId)).toEqual(['int', 'ci-old', 'ci-new']);
  });

  it('ages a waiting request one class up per aging period, so background cannot starve', () => {
    expect(effectiveClass('background', NOW - 59_000, NOW, AGING)).toBe(2);
    expect(effectiveClass('background', NOW - 61_000, NOW, AGING)).toBe(1);
    expect(effectiveClass('background', NOW - 121_000, NOW, AGING)).toBe(0);
    const out = plan(
      [req('fresh-int', { priority: 'interactive' }), req('old-bg', { priority: 'background', createdAtMs: NOW - 130_000 })],
      [dev('d1')],
      teams({}),
      NOW,
      AGING,
    );
    expect(out.map((a) => a.sessionId)).toEqual(['old-bg']); // same class now, and older
  });

  it('splits contended devices between teams by weight over many rounds', () => {
    const usage = teams({ a: { weight: 1 }, b: { weight: 2 }, c: { weight: 3 } });
    const queue: QueuedRequest[] = [];
    for (let i = 0; i < 600; i++) for (const team of ['a', 'b', 'c']) queue.push(req(`${team}${i}`, { team, createdAtMs: NOW - 100_000 + i }));
    const placed = { a: 0, b: 0, c: 0 };
    let remaining = queue;
    for (let round = 0; round < 60; round++) {
      const out = plan(
        remaining,
        Array.from({ length: 10 }, (_, i) => dev(`d${i}`)),
        usage,
        NOW,
        1e12,
      );
      for (const a of out) {
        const team = a.sessionId[0] as 'a' | 'b' | 'c';
        placed[team]++;
        usage.get(team)!.recent++;
      }
      const taken = new Set(out.map((a) => a.sessionId));
      remaining = remaining.filter((r) => !taken.has(r.id));
    }
    expect(placed.a + placed.b + placed.c).toBe(600);
    expect(placed.a / 600).toBeCloseTo(1 / 6, 1);
    expect(placed.b / placed.a).toBeGreaterThan(1.9);
    expect(placed.b / placed.a).toBeLessThan(2.1);
    expect(placed.c / placed.a).toBeGreaterThan(2.9);
    expect(placed.c / placed.a).toBeLessThan(3.1);
  });

  it('gives a newcomer team its share at once rather than making it wait behind a busy team', () => {
    const out = plan(
      [req('busy1', { team: 'busy', createdAtMs: NOW - 9000 }), req('busy2', { team: 'busy', createdAtMs: NOW - 8000 }), req('new1', { team: 'new' })],
      [dev('d1')],
      teams({ busy: { recent: 50 }, new: {} }),
      NOW,
      AGING,
    );
    expect(out.map((a) => a.sessionId)).toEqual(['new1']);
  });

  it('keeps a team at its quota waiting, without blocking other teams', () => {
    const out = plan(
      [req('q1', { team: 'q', createdAtMs: NOW - 5000 }), req('q2', { team: 'q', createdAtMs: NOW - 4000 }), req('o1', { team: 'o' })],
      [dev('d1'), dev('d2'), dev('d3')],
      teams({ q: { quota: 2, active: 1 }, o: {} }),
      NOW,
      AGING,
    );
    expect(out.map((a) => a.sessionId).sort()).toEqual(['o1', 'q1']);
  });

  it('never lets a request no free device matches block one behind it', () => {
    const out = plan(
      [req('ios-like', { requirements: { model: 'iPhone 15' }, createdAtMs: NOW - 9000 }), req('any')],
      [dev('d1', { model: 'Pixel' })],
      teams({}),
      NOW,
      AGING,
    );
    expect(out).toEqual([{ sessionId: 'any', deviceId: 'd1' }]);
  });

  it('matches model, os and every label, and uses the least specialised device that fits', () => {
    const devices = [dev('gpu', { labels: ['gpu', 'eu'] }), dev('plain'), dev('eu', { labels: ['eu'] })];
    expect(plan([req('any')], devices, teams({}), NOW, AGING)).toEqual([{ sessionId: 'any', deviceId: 'plain' }]);
    expect(plan([req('eu', { requirements: { labels: ['eu'] } })], devices, teams({}), NOW, AGING)).toEqual([{ sessionId: 'eu', deviceId: 'eu' }]);
    expect(plan([req('gpu', { requirements: { labels: ['gpu', 'eu'], os: '14' } })], devices, teams({}), NOW, AGING)).toEqual([
      { sessionId: 'gpu', deviceId: 'gpu' },
    ]);
    expect(plan([req('no', { requirements: { os: '15' } })], devices, teams({}), NOW, AGING)).toEqual([]);
    expect(plan([req('android', { platform: 'android' })], devices, teams({}), NOW, AGING)).toEqual([]);
  });

  it('spreads sessions over hosts, counting its own placements, and keeps them off a strained host while another fits', () => {
    const on = (host: string, busy: number, strained = false) => ({ host: { id: host, busy, strained } });
    // Host a is busier; b and c free; c has shown strain lately. Device ids favour a, then c.
    const devices = [
      dev('a1', on('a', 2)),
      dev('a2', on('a', 2)),
      dev('c1', on('c', 0, true)),
      dev('c2', on('c', 0, true)),
      dev('x1', on('b', 0)),
      dev('x2', on('b', 0)),
      dev('x3', on('b', 0)),
    ];
    const out = plan(
      ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((id, i) => req(id, { createdAtMs: NOW - 100 + i })),
      devices,
      teams({}),
      NOW,
      AGING,
    );
    // b until it is as busy as a, then turns; the strained host last.
    expect(out.map((a) => a.deviceId)).toEqual(['x1', 'x2', 'a1', 'x3', 'a2', 'c1']);
    // A strained host still serves a request nothing else fits.
    const special = [dev('plain', on('a', 0)), dev('tablet', { model: 'Tab', ...on('c', 0, true) })];
    expect(plan([req('t', { requirements: { model: 'Tab' } })], special, teams({}), NOW, AGING)).toEqual([{ sessionId: 't', deviceId: 'tablet' }]);
    // Specialisation still comes first: a plain device on a strained host before a labelled one elsewhere.
    const labelled = [dev('gpu', { labels: ['gpu'], ...on('a', 0) }), dev('plain', on('c', 5, true))];
    expect(plan([req('any')], labelled, teams({}), NOW, AGING)).toEqual([{ sessionId: 'any', deviceId: 'plain' }]);
  });

  it('never hands one device to two requests', () => {
    const out = plan(
      Array.from({ length: 50 }, (_, i) => req(`r${i}`, { team: `t${i % 7}` })),
      Array.from({ length: 20 }, (_, i) => dev(`d${i}`)),
      teams({}),
      NOW,
      AGING,
    );
    expect(out).toHaveLength(20);
    expect(new Set(out.map((a) => a.deviceId)).size).toBe(20);
    expect(new Set(out.map((a) => a.sessionId)).size).toBe(20);
  });
});
