// The transition graph on its own: predictions from counts, the typical duration, and the bound on
// what a worker keeps of it (an app whose targets carry content makes new edges while it is driven).
import { describe, expect, it } from 'vitest';
import { TransitionGraph, tapKey, typicalMs } from '../../workers/memory/graph.js';

const at = (ms: number) => ({ durationMs: ms, kind: 'push', verified: true });

describe('the transition graph', () => {
  it('predicts the most travelled destination, and keeps the last 16 durations for the typical one', () => {
    const g = new TransitionGraph();
    const tap = tapKey({ id: null, role: 'button', label: 'Settings' });
    g.record('inbox', tap, 'settings', at(300));
    g.record('inbox', tap, 'settings', at(320));
    g.record('inbox', tap, 'error', { durationMs: 900, kind: null, verified: false });
    expect(g.predict('inbox', tap)).toEqual({ to: 'settings', count: 2, verified: 2 });
    expect(g.predict('inbox', 'tap #other')).toBeNull();
    for (let i = 0; i < 30; i++) g.record('a', 'tap #x', 'b', at(i < 14 ? 5000 : 100 + i));
    const e = g.exits('a')[0]!;
    expect(e.durations).toHaveLength(16);
    expect(typicalMs(e)).toBe(122);
  });

  it('keeps at most its bound, dropping the least recently travelled; an edge travelled again stays', () => {
    const g = new TransitionGraph(100);
    g.record('home', 'tap #often', 'next', at(200));
    for (let i = 0; i < 250; i++) {
      g.record('feed', `tap text "post ${i}"`, `post-${i}`, at(200));
      if (i % 50 === 0) g.record('home', 'tap #often', 'next', at(200));
    }
    expect(g.size).toBe(100);
    expect(g.predict('home', 'tap #often')).toMatchObject({ to: 'next' });
    expect(g.predict('feed', 'tap text "post 0"')).toBeNull(); // the oldest went first
    expect(g.predict('feed', 'tap text "post 249"')).toMatchObject({ to: 'post-249' });
    // An edge loaded from the farm's memory counts as travelled now, under the same bound.
    g.restore({ from: 'feed', action: 'tap #top', to: 'feed', count: 7, verified: 7, durations: [90], kinds: {} });
    expect(g.size).toBe(100);
    expect(g.predict('feed', 'tap #top')).toEqual({ to: 'feed', count: 7, verified: 7 });
  });
});
