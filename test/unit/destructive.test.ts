// The destructive guard: which labels look like they commit something, and a replayed or batched
// step that would touch one without allowDestructive is refused before any input is begun. The
// guard runs in the real Actor and StepRunner here, over a stand-in for the screen (no browser).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { Actor } from '../../workers/acting/act.js';
import { bindingOf } from '../../workers/acting/binding.js';
import type { DeviceBackend } from '../../workers/devices/backend.js';
import { StepRunner } from '../../workers/acting/runner.js';
import { looksDestructive } from '../../workers/memory/destructive.js';
import type { Eyes } from '../../workers/perception/eyes.js';
import { elementJson } from '../../workers/understanding/outline.js';
import { locate, parseTarget } from '../../workers/understanding/refs.js';
import { readScreen } from '../../workers/understanding/screen.js';
import type { Read, Understanding } from '../../workers/understanding/service.js';
import { n, tree } from '../helpers/trees.js';

describe('destructive-looking labels', () => {
  it('flags what commits, deletes or leaves, in any case and spacing', () => {
    for (const label of [
      'Delete',
      'DELETE ACCOUNT',
      'Remove',
      'Erase all content',
      'Reset',
      'Sign out',
      'Sign-out',
      'Log Out',
      'Logout',
      'Pay',
      'Pay $12.00',
      'Buy now',
      'Purchase',
      'Order',
      'Order now',
      'Place order',
      'Submit',
      'Send',
      'Send message',
      'Confirm payment',
      'Unsubscribe',
      'Checkout',
      'Clear all',
      'Post',
      'Transfer money',
      'Delete order history',
      '🗑 Delete',
    ]) {
      expect(looksDestructive(label), label).toBe(true);
    }
  });

  it('leaves alone words that merely contain one, and nouns for a place to look', () => {
    for (const label of [
      'Sender',
      'Senders',
      'Resend code',
      'Deleted items',
      'Display',
      'Payment methods',
      'Buyer guide',
      'Orders',
      'Order history',
      'Order details',
      'Sort order',
      'Track order',
      'Purchase history',
      'Posts',
      'Submitted',
      'Settings',
      'Search',
      'Inbox',
      '',
    ]) {
      expect(looksDestructive(label), label).toBe(false);
    }
  });
});

/**
 * The real Actor over a review screen (Back, Sender, Submit), with a stand-in for the screen that
 * answers every read with it. The eyes are what the Actor uses first once the guard lets a step
 * through (it waits for the screen to be idle before playing the input): that call is counted and
 * ends the run with PAST_THE_GUARD. The device may not be used at all.
 */
function reviewScreen() {
  const reading = readScreen(
    tree([
      n('heading', 'Review', [140, 50, 113, 24]),
      n('button', 'Back', [8, 44, 80, 36]),
      n('button', 'Sender', [0, 200, 393, 44], { id: 'sender' }),
      n('button', 'Submit', [16, 700, 361, 50], { id: 'submit' }),
    ]),
    'web',
  );
  const read = {
    reading,
    identified: { node: { id: 'review', name: 'Review' }, known: true },
    source: 'tree',
    memory: { graph: { predict: () => null } },
  } as unknown as Read;
  const u = {
    current: async () => ({ read, cached: false }),
    treeReads: () => 0,
    locate: (_l: string, _e: number, r: Read, target: string, role?: string, index?: number) =>
      locate(parseTarget(target, role, index), { reading: r.reading, screen: { id: 'review', name: 'Review' } }, undefined),
    elementJson: (r: Read, i: number) => elementJson(r.reading, i),
    number: () => undefined,
    header: () => ({ device: 'web test', screenId: 'review', name: 'Review', known: true }),
  } as unknown as Understanding;
  let inputsBegun = 0;
  const eyes = {
    activity: { isSettled: () => true, lastMotion: undefined },
    idle: async () => {
      inputsBegun++;
      throw new Error('PAST_THE_GUARD');
    },
  } as unknown as Eyes;
  // A device that fails the test if anything of it is used.
  const device = new Proxy(
    {},
    {
      get: (_t, p) => {
        throw new Error(`the device was used (${String(p)})`);
      },
    },
  ) as DeviceBackend;
  const actor = new Actor(
    u,
    () => device,
    () => eyes,
    50,
    pino({ level: 'silent' }),
  );
  const binding = (id: string) =>
    bindingOf(
      reading,
      reading.elements.findIndex((e) => e.id === id),
    );
  return { actor, binding, inputsBegun: () => inputsBegun };
}

describe('the destructive guard in a run', () => {
  it('refuses a replayed step on a destructive-looking control before any input, and names it', async () => {
    const s = reviewScreen();
    const step = { action: 'tap', target: '#submit', expect: { binding: s.binding('submit'), from: 'review', to: 'welcome' } } as Schemas['Step'];
    const out = await new StepRunner(s.actor).run('web-1', 1, 'team', { steps: [step] });
    expect(out.divergence).toMatchObject({ index: 0, code: 'destructive-refused', screen: { id: 'review' }, resume: { from: 0 } });
    expect(out.divergence!.message).toContain('button "Submit" on screen review "Review" looks destructive; not touched');
    expect(out.steps[0]!.triage.map((t) => t.decision)).toEqual(['stop']); // never retried
    expect(s.inputsBegun()).toBe(0);
  });

  it('refuses a batch step found by label too, and lets a step through that says allowDestructive', async () => {
    const s = reviewScreen();
    const batch = await new StepRunner(s.actor).run('web-1', 1, 'team', { steps: [{ action: 'tap', target: 'Submit' }] });
    expect(batch.divergence).toMatchObject({ code: 'destructive-refused' });
    expect(s.inputsBegun()).toBe(0);
    const allowed = {
      action: 'tap',
      target: '#submit',
      allowDestructive: true,
      expect: { binding: s.binding('submit'), from: 'review', to: 'welcome' },
    } as Schemas['Step'];
    await expect(new StepRunner(s.actor).run('web-1', 1, 'team', { steps: [allowed] })).rejects.toThrow('PAST_THE_GUARD');
    expect(s.inputsBegun()).toBe(1);
  });

  it('does not stop a replay at a control whose label merely contains a destructive word', async () => {
    const s = reviewScreen();
    const step = { action: 'tap', target: '#sender', expect: { binding: s.binding('sender'), from: 'review', to: 'sender' } } as Schemas['Step'];
    await expect(new StepRunner(s.actor).run('web-1', 1, 'team', { steps: [step] })).rejects.toThrow('PAST_THE_GUARD');
    expect(s.inputsBegun()).toBe(1);
  });
});
