// The parts of acting that decide without a device: the triage rules, the plan digest, the identity
// check a replay makes before it touches anything, the scroll sensor, and what a recording keeps.
import { describe, expect, it } from 'vitest';
import { planDigest } from '../../openapi/plan-digest.js';
import type { Schemas } from '../../openapi/contract.js';
import { recordedStep } from '../../server/domain/flows/recorder.js';
import { bindingOf, checkBinding } from '../../workers/acting/binding.js';
import { movement } from '../../workers/acting/scroll-sensor.js';
import { triage, type Failure } from '../../workers/acting/triage.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { listScreen } from '../helpers/trees.js';

const read = (...a: Parameters<typeof listScreen>) => readScreen(listScreen(...a), 'web');
const indexOf = (r: ReturnType<typeof read>, role: string, label: string) => r.elements.findIndex((e) => e.role === role && e.label === label);

describe('triage', () => {
  const f = (code: Failure['code'], more: Partial<Failure> = {}): Failure => ({ code, touched: false, screenBusy: false, earlier: [], ...more });

  it('waits once for a target missing while the screen still changes, then stops', () => {
    const first = triage(f('selector-miss', { screenBusy: true }));
    expect(first.decision).toBe('wait');
    expect(triage(f('selector-miss', { screenBusy: true, earlier: [first] })).decision).toBe('stop');
    expect(triage(f('selector-miss')).decision).toBe('stop'); // a settled screen without it: no point waiting
  });

  it('never plays a touch twice: a step that acted is looked at again, not repeated', () => {
    expect(triage(f('no-visible-change', { touched: true })).decision).toBe('wait');
    const waited = triage(f('no-visible-change', { touched: true }));
    expect(triage(f('no-visible-change', { touched: true, earlier: [waited] })).decision).toBe('stop');
    expect(triage(f('action-failed', { touched: true })).decision).toBe('stop');
    expect(triage(f('selector-miss', { touched: true, screenBusy: true })).decision).toBe('stop');
    const retry = triage(f('action-failed'));
    expect(retry.decision).toBe('retry');
    expect(triage(f('action-failed', { earlier: [retry] })).decision).toBe('stop');
  });

  it('gives an action whose screen never settled one more timeout, but never stretches a wait step', () => {
    const once = triage(f('timeout', { touched: true }));
    expect(once.decision).toBe('wait');
    expect(triage(f('timeout', { touched: true, earlier: [once] })).decision).toBe('stop');
    expect(triage(f('timeout')).decision).toBe('stop');
  });

  it('stops at once on what waiting cannot put right', () => {
    for (const code of ['unexpected-screen', 'identity-mismatch', 'destructive-refused', 'stale-ref', 'assertion-failed'] as const) {
      const t = triage(f(code, { screenBusy: true }));
      expect(t.decision, code).toBe('stop');
      expect(t.rule.length).toBeGreaterThan(10);
    }
  });
});

describe('plan digest', () => {
  it('is the same for the same steps whatever the key order, and differs for any change', () => {
    const a = [{ action: 'tap', target: 'Settings', role: 'tab' }, { action: 'back' }];
    const b = [{ role: 'tab', target: 'Settings', action: 'tap' }, { action: 'back' }];
    expect(planDigest(a)).toBe(planDigest(b));
    expect(planDigest(a)).toMatch(/^[a-f0-9]{32}$/);
    expect(planDigest([{ ...a[0], role: 'button' }, a[1]])).not.toBe(planDigest(a));
    expect(planDigest([a[1], a[0]])).not.toBe(planDigest(a));
    expect(planDigest(a.slice(0, 1))).not.toBe(planDigest(a));
  });
});

describe('identity check before a replayed touch', () => {
  const tabs = ['Inbox', 'Search', 'Settings'];
  const recorded = (() => {
    const r = read('Inbox', ['Ada', 'Grace', 'Alan'], { tabs });
    return bindingOf(r, indexOf(r, 'tab', 'Settings'));
  })();

  it('records the role, label, region and places of the element', () => {
    expect(recorded).toMatchObject({ role: 'tab', label: 'Settings', id: null, region: 'bottom', sibling: 2, viewportOrder: 0 });
    expect(recorded.ancestry.at(-1)).toBe('region bottom');
  });

  it('finds the same element on the same screen', () => {
    const r = read('Inbox', ['Ada', 'Grace', 'Alan'], { tabs });
    const c = checkBinding(r, recorded);
    expect(c.mismatch).toBeNull();
    expect(r.elements[c.index!]!.label).toBe('Settings');
  });

  it('reports a renamed control as a mismatch showing both, found in the recorded place', () => {
    const r = read('Inbox', ['Ada', 'Grace', 'Alan'], { tabs: ['Inbox', 'Search', 'Preferences'] });
    const c = checkBinding(r, recorded);
    expect(c.matchCount).toBe(0);
    expect(c.observed).toMatchObject({ role: 'tab', label: 'Preferences', sibling: 2 });
    expect(c.mismatch).toMatch(/nothing is tab "Settings"; in its place .* is tab "Preferences"/);
  });

  it('is a miss, not a guess, when nothing is in the recorded place either', () => {
    const r = read('Inbox', ['Ada', 'Grace', 'Alan'], { tabs: ['Inbox', 'Search'] });
    const c = checkBinding(r, recorded);
    expect(c).toMatchObject({ index: null, observed: null, matchCount: 0 });
  });

  it('refuses the wrong one of several same-named elements', () => {
    const r = read('Inbox', ['Ada', 'Ada', 'Ada'], { tabs });
    const rows = r.elements.map((e, i) => ({ e, i })).filter(({ e }) => e.label === 'Ada');
    const second = bindingOf(r, rows[1]!.i);
    expect(second.viewportOrder).toBe(1);
    expect(checkBinding(r, second).mismatch).toBeNull();
    // The list changed above it: the second Ada is now the third row, and the second row is the
    // first Ada. Which one was meant cannot be told, so nothing is touched.
    const moved = read('Inbox', ['Grace', 'Ada', 'Ada'], { tabs });
    const c = checkBinding(moved, second);
    expect(c.matchCount).toBe(2);
    expect(c.mismatch).toMatch(/2 elements are .*"Ada".*recorded one was 2nd of them and 2nd/);
  });
});

describe('scroll sensor', () => {
  const rows = Array.from({ length: 30 }, (_, i) => `Row ${i + 1}`);

  it('measures the content, not the bars that never move', () => {
    const m = movement(read('Inbox', rows, { scrollY: 0 }), read('Inbox', rows, { scrollY: 240 }));
    expect(m.movedPt).toBe(240);
    expect(m.shared).toBeGreaterThan(10);
    expect(movement(read('Inbox', rows, { scrollY: 240 }), read('Inbox', rows, { scrollY: 100 })).movedPt).toBe(-140);
  });

  it('reads a stall as zero, and has nothing to say when nothing is shared', () => {
    expect(movement(read('Inbox', rows, { scrollY: 500 }), read('Inbox', rows, { scrollY: 500 })).movedPt).toBe(0);
    expect(movement(read('Inbox', ['A', 'B']), read('Inbox', ['C', 'D'])).movedPt).toBeNull();
  });
});

describe('what a recording keeps', () => {
  const result = (binding: Schemas['Binding'] | null, destructive = false) =>
    ({
      binding,
      screen: { id: 'after1', name: 'Message', known: true, fingerprint: 'f' },
      evidence: { before: { id: 'before1', name: 'Inbox', known: true, fingerprint: 'e' }, destructive },
    }) as unknown as Schemas['ActionResult'];
  const b = (more: Partial<Schemas['Binding']>): Schemas['Binding'] => ({
    role: 'button',
    label: 'Delete',
    id: null,
    region: 'content',
    ancestry: [],
    sibling: 0,
    viewportOrder: 0,
    ...more,
  });

  it("turns an ephemeral ref into the element's id, with the evidence and both screens", () => {
    const s = recordedStep({ action: 'tap', target: '@7' }, result(b({ id: 'message-2', label: 'Ada' })));
    expect(s).toEqual({
      action: 'tap',
      target: '#message-2',
      expect: { binding: b({ id: 'message-2', label: 'Ada' }), from: 'before1', to: 'after1', fromName: 'Inbox', toName: 'Message' },
    });
  });

  it('keeps a label and role (and the place among same-named ones) where there is no id', () => {
    const s = recordedStep({ action: 'tap', target: 'Dlete', or: ['Remove'] }, result(b({ viewportOrder: 2 }), true));
    expect(s).toMatchObject({ action: 'tap', target: 'Delete', role: 'button', index: 2, allowDestructive: true });
    expect(s.or).toBeUndefined();
  });

  it("keeps waits and asserts as written: they are the flow's synchronisation", () => {
    const wait = { action: 'wait', for: 'visible', target: 'Signed up', timeoutMs: 8000 } as const;
    expect(recordedStep(wait, undefined)).toEqual(wait);
  });
});
