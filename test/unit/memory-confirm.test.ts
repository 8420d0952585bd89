// What a worker tells the farm about a screen (workers/memory): the vocabulary it learns with it
// (roles, labels, tap points) and, when a known screen is recognised again, a confirmation, at most
// once a minute per screen so that warm reads on every action do not flood the link.
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { AppMemory } from '../../workers/memory/app-memory.js';
import { CONFIRM_EVERY_MS, ConfirmThrottle } from '../../workers/memory/confirm-throttle.js';
import { type MemoryChannel, MemorySync } from '../../workers/memory/sync.js';
import { MAX_WORDS, vocabularyOf } from '../../workers/memory/vocabulary.js';
import { analyse, GRID_W, gridHeight } from '../../workers/perception/analysis.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { n, tree } from '../helpers/trees.js';

type Write = Schemas['WorkerMemoryWrite'];

/** The gateway as the worker sees it: takes every write. */
class Recorder implements MemoryChannel {
  readonly writes: Write[] = [];
  async memory(msg: Write | Schemas['WorkerMemoryLoad']): Promise<Schemas['GatewayMemoryReply']> {
    if (msg.type === 'memory-write') this.writes.push(structuredClone(msg));
    return { type: 'memory', id: msg.id, ok: true };
  }
}

const settings = () =>
  readScreen(
    tree([
      n('header', '', [0, 0, 393, 88], { children: [n('heading', 'Settings', [140, 50, 113, 24])] }),
      n('button', 'Notifications', [16, 120, 361, 44], { id: 'link-notifications' }),
      n('button', 'Privacy', [16, 170, 361, 44], { id: 'link-privacy' }),
      n('text', 'Version 1.0', [16, 700, 200, 20]),
    ]),
    'web',
  );
const frame = () => analyse(new Uint8Array(GRID_W * gridHeight(393, 852)).fill(200), { seq: 1, at: 0, wallAt: 0, widthPt: 393, heightPt: 852 });

afterEach(() => {
  vi.useRealTimers();
});

describe('the confirmation throttle', () => {
  it('lets a screen through once a minute, each screen on its own clock', () => {
    const t = new ConfirmThrottle();
    expect(t.take('settings', 0)).toBe(true);
    expect(t.take('settings', 1)).toBe(false);
    expect(t.take('settings', CONFIRM_EVERY_MS - 1)).toBe(false);
    expect(t.take('privacy', 1000)).toBe(true); // another screen is not held back by this one
    expect(t.take('settings', CONFIRM_EVERY_MS)).toBe(true);
    expect(t.take('settings', CONFIRM_EVERY_MS + 30_000)).toBe(false);
  });

  it('counts a screen written in full as confirmed', () => {
    const t = new ConfirmThrottle();
    t.note('settings', 10_000);
    expect(t.take('settings', 10_000 + CONFIRM_EVERY_MS - 1)).toBe(false);
    expect(t.take('settings', 10_000 + CONFIRM_EVERY_MS)).toBe(true);
  });
});

describe('what a worker writes of a screen', () => {
  it('learns the vocabulary with the screen, then confirms a known screen at most once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = new Recorder();
    const sync = new MemorySync(gateway, pino({ level: 'silent' }));
    const memory = new AppMemory({ team: 'qa', platform: 'web', app: 'sample@any' }, sync);
    const reading = settings();
    const node = memory.book.identify(reading.fingerprint, reading.title).node.id;
    const t0 = Date.now();
    memory.remember(node, reading, frame());
    await sync.flush();
    const [taught] = gateway.writes;
    const screen = taught!.screens[0]!;
    expect(screen.confirmedAt).toBe(new Date(t0).toISOString());
    expect(screen.vocabulary).toContainEqual({ role: 'button', label: 'Notifications', id: 'link-notifications', tap: { x: 197, y: 142 } });
    expect(screen.vocabulary!.map((w) => w.label)).toEqual(['Settings', 'Notifications', 'Privacy', 'Version 1.0']);

    // Warm reads right after: the screen was just written, nothing more goes out.
    vi.setSystemTime(t0 + 5_000);
    memory.confirm(node, reading);
    memory.confirm(node, reading);
    await sync.flush();
    expect(gateway.writes).toHaveLength(1);

    // A minute after it was written: one confirmation, with the matched face's vocabulary.
    vi.setSystemTime(t0 + CONFIRM_EVERY_MS);
    for (let i = 0; i < 50; i++) memory.confirm(node, reading);
    await sync.flush();
    expect(gateway.writes).toHaveLength(2);
    expect(gateway.writes[1]).toMatchObject({
      screens: [],
      confirmations: [{ id: node, confirmedAt: new Date(t0 + CONFIRM_EVERY_MS).toISOString(), vocabulary: screen.vocabulary }],
    });

    // A screen this memory does not hold is not confirmed (a farm that forgot it would skip it anyway).
    vi.setSystemTime(t0 + 3 * CONFIRM_EVERY_MS);
    memory.confirm('no-such-screen');
    memory.confirm(node); // recognised without a settled reading: the time only
    await sync.flush();
    expect(gateway.writes[2]!.confirmations).toEqual([{ id: node, confirmedAt: new Date(t0 + 3 * CONFIRM_EVERY_MS).toISOString() }]);
  });

  it('sends screens that carry vocabularies a few to a message, so a message stays within the link limit', async () => {
    const gateway = new Recorder();
    const sync = new MemorySync(gateway, pino({ level: 'silent' }));
    const key = { team: 'qa', platform: 'web' as const, app: 'sample@any' };
    const vocabulary = vocabularyOf(settings());
    for (let i = 0; i < 20; i++) sync.screen(key, 0, { id: `s${i}`, name: null, fingerprints: [], readings: 1, vocabulary });
    for (let i = 0; i < 20; i++) sync.confirmation(key, 0, { id: `s${i}`, confirmedAt: new Date().toISOString(), vocabulary });
    await sync.flush();
    expect(gateway.writes.map((w) => [w.screens.length, w.confirmations!.length])).toEqual([
      [8, 8],
      [8, 8],
      [4, 4],
    ]);
    expect(new Set(gateway.writes.map((w) => w.id)).size).toBe(3);
  });

  it('keeps at most 200 entries of a crowded screen, controls before text', () => {
    const rows = Array.from({ length: 150 }, (_, i) => n('text', `line ${i}`, [16, 100 + i * 4, 200, 4]));
    const buttons = Array.from({ length: 100 }, (_, i) => n('button', `action ${i}`, [220, 100 + i * 6, 150, 6]));
    const words = vocabularyOf(readScreen(tree([...rows, ...buttons], { widthPt: 393, heightPt: 852, scale: 3 }), 'web'));
    expect(words).toHaveLength(MAX_WORDS);
    expect(words.filter((w) => w.role === 'button')).toHaveLength(100);
    for (const w of words) expect(w.tap.x >= 0 && w.tap.x <= 393 && w.tap.y >= 0 && w.tap.y <= 852).toBe(true);
  });

  it('cuts a long label of emoji between characters, never inside one (Postgres refuses half a pair)', () => {
    // 299 letters and an emoji: the 300-unit cut used to keep the emoji's first half.
    const label = `${'x'.repeat(299)}📬 and more`;
    const words = vocabularyOf(readScreen(tree([n('button', label, [16, 100, 300, 44])]), 'web'));
    expect(words[0]!.label).toBe('x'.repeat(299));
    expect(JSON.stringify(words)).not.toMatch(/\\ud83d/i);
  });
});
