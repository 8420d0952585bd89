// A plan's blocks on the step runner (Maestro's runFlow `when`, `repeat` with `while`, `retry` and
// onFlowComplete), against a fake actor whose screen is a list that taps change.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import type { Actor } from '../../workers/acting/act.js';
import { StepRunner } from '../../workers/acting/runner.js';
import { DeviceError } from '../../workers/devices/backend.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { selectAll } from '../../workers/understanding/select.js';
import type { Read } from '../../workers/understanding/service.js';
import { listScreen } from '../helpers/trees.js';

type Effects = Record<string, (rows: string[]) => void>;

/** A screen of rows; tapping a row runs its effect, tapping what is not there fails as the device would. */
function fakeActor(rows: string[], effects: Effects, platform: 'web' | 'android' = 'web') {
  const taps: string[] = [];
  const read = (): Read =>
    ({ reading: readScreen(listScreen('App', rows), 'web'), identified: { node: { id: 'app', name: 'App' }, known: true }, source: 'tree' }) as unknown as Read;
  const eyes = { activity: { isSettled: () => true, lastMotion: undefined }, wait: async () => ({ status: 'settled', waitedMs: 0 }), mark: () => 0 };
  const actor = {
    quietMs: 50,
    logger: pino({ level: 'silent' }),
    eyesOf: () => eyes,
    backendOf: () => ({ platform }),
    understanding: {
      current: async () => ({ read: read() }),
      number: () => undefined,
      header: () => ({ device: 'web-1', screenId: 'app', name: 'App', known: true }),
    },
    act: async (_l: string, _e: number, _t: string, req: Schemas['ActionRequest']) => {
      const r = read();
      const hit = req.select
        ? selectAll(req.select, { elements: r.reading.elements, shown: (i) => r.reading.refs[i] !== null })[0]
        : r.reading.elements.findIndex((e) => e.label === req.target);
      const label = hit === undefined || hit < 0 ? undefined : r.reading.elements[hit]!.label;
      if (label === undefined) throw new DeviceError('NO_MATCH', `nothing matches ${JSON.stringify(req.select ?? req.target)}`);
      taps.push(label);
      effects[label]?.(rows);
      return {
        action: req.action,
        verdict: 'ok',
        reason: 'changed',
        target: null,
        screen: { id: 'app', name: 'App' },
        evidence: {},
        settle: { status: 'settled' },
      };
    },
  } as unknown as Actor;
  return { actor, taps };
}

const tap = (text: string): Schemas['Step'] => ({ action: 'tap', select: { text } });
const run = (actor: Actor, steps: Schemas['Step'][], blocks: Schemas['StepBlock'][]) => new StepRunner(actor).run('web-1', 1, 'team', { steps, blocks });

describe('blocks on the step runner', () => {
  it('runs a when block only if its condition holds as it begins, and reports its steps skipped otherwise', async () => {
    const { actor, taps } = fakeActor(['Accept cookies', 'Home'], { 'Accept cookies': (r) => r.splice(0, 1) });
    const steps = [tap('Accept.*'), tap('Home')];
    const first = await run(actor, steps, [{ first: 0, last: 0, when: { visible: { text: 'Accept cookies' } } }]);
    expect(first.divergence).toBeNull();
    expect(taps).toEqual(['Accept cookies', 'Home']);
    const again = await run(actor, steps, [{ first: 0, last: 0, when: { visible: { text: 'Accept cookies' } } }]);
    expect(again.divergence).toBeNull();
    expect(again.steps[0]).toMatchObject({ index: 0, status: 'skipped', detail: 'skipped: when visible (text ~ "Accept cookies") did not hold' });
    expect(taps).toEqual(['Accept cookies', 'Home', 'Home']);
  });

  it('checks notVisible and the platform', async () => {
    const { actor, taps } = fakeActor(['Home'], {}, 'android');
    const out = await run(
      actor,
      [tap('Home'), tap('Home'), tap('Home')],
      [
        { first: 0, last: 0, when: { platform: 'ios' } },
        { first: 1, last: 1, when: { platform: 'android', notVisible: { text: 'Login' } } },
        { first: 2, last: 2, when: { notVisible: { text: 'Home' } } },
      ],
    );
    expect(out.steps.map((s) => s.status)).toEqual(['skipped', 'done', 'skipped']);
    expect(taps).toEqual(['Home']);
  });

  it('repeats while the condition holds, checking it before every round', async () => {
    let loaded = 0;
    const { actor, taps } = fakeActor(['Load more'], {
      'Load more': (r) => {
        r.push(`Item ${++loaded}`);
        if (loaded === 3) r.splice(r.indexOf('Load more'), 1);
      },
    });
    const out = await run(actor, [tap('Load more'), tap('Item 3')], [{ first: 0, last: 0, repeat: { while: { visible: { text: 'Load more' } } } }]);
    expect(out.divergence).toBeNull();
    expect(taps).toEqual(['Load more', 'Load more', 'Load more', 'Item 3']);
    expect(out.steps.map((s) => s.index)).toEqual([0, 0, 0, 1]);
  });

  it('stops a repeat at its times even while the condition still holds, and fails one that never ends', async () => {
    const { actor, taps } = fakeActor(['More'], {});
    const capped = await run(actor, [tap('More')], [{ first: 0, last: 0, repeat: { times: 4, while: { visible: { text: 'More' } } } }]);
    expect(capped.divergence).toBeNull();
    expect(taps).toHaveLength(4);
    const endless = await run(actor, [tap('More')], [{ first: 0, last: 0, repeat: { while: { visible: { text: 'More' } } } }]);
    expect(endless.divergence).toMatchObject({ code: 'assertion-failed', resume: { allowed: false } });
    expect(endless.divergence!.message).toContain('repeat while visible (text ~ "More") still held after 100 rounds');
    expect(taps).toHaveLength(104);
  });

  it('retries a block from its first step when one of its steps fails, at most retries more times', async () => {
    let opened = 0;
    const { actor, taps } = fakeActor(['Open'], {
      Open: (r) => {
        if (++opened === 2) r.push('Details');
      },
    });
    const out = await run(actor, [tap('Open'), tap('Details')], [{ first: 0, last: 1, retries: 2 }]);
    expect(out.divergence).toBeNull();
    expect(taps).toEqual(['Open', 'Open', 'Details']);
    expect(out.steps.map((s) => [s.index, s.status])).toEqual([
      [0, 'done'],
      [1, 'failed'],
      [0, 'done'],
      [1, 'done'],
    ]);
    expect(out.steps[1]!.detail).toContain('(retry 1 of 2: the block from step 0 runs again)');
    const gaveUp = await run(fakeActor(['Open'], {}).actor, [tap('Open'), tap('Details')], [{ first: 0, last: 1, retries: 1 }]);
    expect(gaveUp.divergence).toMatchObject({ index: 1 });
    expect(gaveUp.steps).toHaveLength(4);
  });

  it('runs an always block after a failure, keeping the first failure as the divergence', async () => {
    const { actor, taps } = fakeActor(['Home', 'Log out'], {});
    const out = await run(actor, [tap('Home'), tap('Missing'), tap('Home'), tap('Log out')], [{ first: 3, last: 3, always: true }]);
    expect(out.divergence).toMatchObject({ index: 1 });
    expect(taps).toEqual(['Home', 'Log out']);
    expect(out.steps.map((s) => [s.index, s.status])).toEqual([
      [0, 'done'],
      [1, 'failed'],
      [3, 'done'],
    ]);
  });

  it('refuses blocks that overlap in part, or run past the plan, before anything runs', async () => {
    const { actor, taps } = fakeActor(['Home'], {});
    await expect(
      run(
        actor,
        [tap('Home'), tap('Home'), tap('Home')],
        [
          { first: 0, last: 1 },
          { first: 1, last: 2, retries: 1 },
        ],
      ),
    ).rejects.toThrow(/overlap in part/);
    await expect(run(actor, [tap('Home')], [{ first: 0, last: 3, retries: 1 }])).rejects.toThrow(/outside steps 0..0/);
    expect(taps).toEqual([]);
  });
});
