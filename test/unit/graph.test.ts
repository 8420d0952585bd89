// The transition graph on its own: predictions from counts, the typical duration, and the bound on
// what a worker keeps of it (an app whose targets carry content makes new edges while it is driven).
import { describe, expect, it } from 'vitest';
import { TransitionGraph, tapKey, typicalMs } from '../../workers/memory/graph.js';
import { exitHints } from '../../workers/understanding/hints.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { n, tree } from '../helpers/trees.js';

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

  it('hints what worked here before by the label the screen shows, only for targets on this screen', () => {
    const settings = readScreen(
      tree([
        n('heading', 'Settings', [140, 50, 113, 24]),
        n('button', 'Notifications', [0, 100, 393, 44], { id: 'link-notifications' }),
        n('button', 'Privacy', [0, 150, 393, 44], { id: 'link-privacy' }),
        n('button', '', [340, 40, 44, 44], { id: 'icon-trash' }),
        n('button', 'Edit', [0, 200, 190, 44], { id: 'edit-name' }),
        n('button', 'Edit', [200, 200, 190, 44], { id: 'edit-photo' }),
        n('button', 'Long form', [0, 900, 393, 44], { id: 'link-form' }), // below the screen: no ref
      ]),
      'web',
    );
    const idOf = (id: string) => settings.elements.find((e) => e.id === id)!;
    const g = new TransitionGraph();
    const times = (k: number, from: string, target: string, to: string, verified = true) => {
      for (let i = 0; i < k; i++) g.record(from, tapKey(idOf(target)), to, { durationMs: 200, kind: 'push', verified });
    };
    times(2, 'settings', 'link-notifications', 'notifications');
    times(5, 'settings', 'link-privacy', 'privacy');
    times(3, 'settings', 'icon-trash', 'trash');
    times(9, 'settings', 'link-form', 'form'); // most used, but not on the screen now
    times(8, 'settings', 'edit-name', 'name', false); // never verified
    g.record('settings', 'tap #link-billing', 'billing', { durationMs: 200, kind: 'push', verified: true }); // another screen's control
    expect(exitHints(g, 'settings', settings)).toEqual({ exits: 6, workedBefore: ['tap "Privacy" (5x)', 'tap #icon-trash (3x)', 'tap "Notifications" (2x)'] });

    // A label shown twice is told apart by its id; a hint whose target is absent is not shown at all.
    times(4, 'settings', 'edit-photo', 'photo');
    expect(exitHints(g, 'settings', settings).workedBefore).toEqual(['tap "Privacy" (5x)', 'tap "Edit" #edit-photo (4x)', 'tap #icon-trash (3x)']);
    const privacyGone = readScreen(
      tree([n('heading', 'Settings', [140, 50, 113, 24]), n('button', 'Notifications', [0, 100, 393, 44], { id: 'link-notifications' })]),
      'web',
    );
    expect(exitHints(g, 'settings', privacyGone).workedBefore).toEqual(['tap "Notifications" (2x)']);
    expect(exitHints(g, 'elsewhere', settings)).toEqual({});
  });
});
