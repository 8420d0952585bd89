// Screen memory in Postgres (server/db/repositories/memory.ts): a screen's vocabulary (roles, labels,
// tap points) and when it was last confirmed, as workers write them behind through the gateway. A
// fresh database on the real server; writes go through the repository as the gateway applies them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import type { Database } from '../../server/db/database.js';
import { applyMemoryWrite, loadMemory } from '../../server/db/repositories/memory.js';
import type { TestDatabase } from '../helpers/db.js';
import { migratedDatabase } from '../helpers/migrated-db.js';

type Write = Schemas['WorkerMemoryWrite'];

let tdb: TestDatabase;
let db: Database;

beforeAll(async () => {
  ({ tdb, db } = await migratedDatabase('memory-screens'));
});
afterAll(async () => {
  await db?.close();
  await tdb?.drop();
});

let keys = 0;
/** Each test its own app, so none sees another's rows. */
const freshKey = (): Schemas['MemoryKey'] => ({ team: 'qa', platform: 'web', app: `sample-${++keys}@any` });
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
const fingerprints = [{ hash: '1a2b3c4d', title: 'Settings', tokens: ['e:top:heading', 'n:button:notifications', 'n:button:privacy'] }];
const settings = (vocabulary: Schemas['MemoryWord'][], confirmedAt: string): Schemas['MemoryScreen'] => ({
  id: 'n1',
  name: 'Settings',
  fingerprints,
  readings: 2,
  vocabulary,
  confirmedAt,
});
const words = (...labels: string[]): Schemas['MemoryWord'][] =>
  labels.map((label, i) => ({ role: 'button', label, id: `b-${i}`, tap: { x: 196.5, y: 120 + 44 * i } }));
/** Write ids are the farm's, not an app's: each test's are its own. */
const write = (key: Schemas['MemoryKey'], id: string, w: Partial<Write>): Write => ({
  type: 'memory-write',
  id: `${key.app}:${id}`,
  key,
  generation: 0,
  screens: [],
  edges: [],
  escalations: [],
  ...w,
});
const screenOf = async (key: Schemas['MemoryKey']) => (await loadMemory(db, key, { vocabulary: true })).screens.find((s) => s.id === 'n1');

describe('screen memory in Postgres', () => {
  it('reads a screen back with the vocabulary and time it was written with', async () => {
    const key = freshKey();
    const at = ago(30);
    expect(await applyMemoryWrite(db, 'host-1', write(key, 'w1', { screens: [settings(words('Notifications', 'Privacy'), at)] }))).toBe('applied');
    expect(await screenOf(key)).toEqual({
      id: 'n1',
      name: 'Settings',
      fingerprints,
      readings: 2,
      vocabulary: words('Notifications', 'Privacy'),
      confirmedAt: at,
    });
    // A worker's load leaves the vocabulary out (it would not fit one message for a large app).
    const loaded = (await loadMemory(db, key)).screens[0]!;
    expect(loaded).not.toHaveProperty('vocabulary');
    expect(loaded.confirmedAt).toBe(at);
  });

  it('moves confirmed_at forward on a confirmation, without losing the fingerprints', async () => {
    const key = freshKey();
    await applyMemoryWrite(db, 'host-1', write(key, 'w1', { screens: [settings(words('Notifications'), ago(120))] }));
    // Recognised again on another host, with the vocabulary of the face it matched.
    const seenAgain = ago(10);
    expect(
      await applyMemoryWrite(
        db,
        'host-2',
        write(key, 'c1', { confirmations: [{ id: 'n1', confirmedAt: seenAgain, vocabulary: words('Notifications', 'Privacy') }] }),
      ),
    ).toBe('applied');
    const confirmed = (await screenOf(key))!;
    expect(confirmed.confirmedAt).toBe(seenAgain);
    expect(confirmed).toMatchObject({ fingerprints, name: 'Settings', readings: 2, vocabulary: words('Notifications', 'Privacy') });
    // A confirmation without a vocabulary (a tree read taken while something moved) keeps the one held.
    await applyMemoryWrite(db, 'host-2', write(key, 'c2', { confirmations: [{ id: 'n1', confirmedAt: ago(5) }] }));
    expect(await screenOf(key)).toMatchObject({ fingerprints, vocabulary: words('Notifications', 'Privacy') });
    // One that arrives late (older than the one held) neither moves the time back nor replaces the words.
    const before = (await screenOf(key))!.confirmedAt;
    await applyMemoryWrite(db, 'host-3', write(key, 'c3', { confirmations: [{ id: 'n1', confirmedAt: ago(60), vocabulary: words('Stale') }] }));
    expect(await screenOf(key)).toMatchObject({ confirmedAt: before, vocabulary: words('Notifications', 'Privacy') });
    // A host whose clock runs ahead cannot pin the screen in the future: the database's clock caps it.
    await applyMemoryWrite(db, 'host-4', write(key, 'c4', { confirmations: [{ id: 'n1', confirmedAt: new Date(Date.now() + 3_600_000).toISOString() }] }));
    expect(Date.parse((await screenOf(key))!.confirmedAt!)).toBeLessThanOrEqual(Date.now() + 5_000);
    // A confirmation of a screen the farm does not hold creates nothing.
    await applyMemoryWrite(db, 'host-2', write(key, 'c5', { confirmations: [{ id: 'n9', confirmedAt: ago(1), vocabulary: words('Ghost') }] }));
    expect((await loadMemory(db, key)).screens.map((s) => s.id)).toEqual(['n1']);
  });

  it('applies a replayed write id once', async () => {
    const key = freshKey();
    const edge = { from: 'n0', action: 'tap #tab-settings', to: 'n1', count: 1, verified: 1, durations: [200], kinds: { push: 1 } };
    const w = write(key, 'r1', { screens: [settings(words('Notifications'), ago(20))], confirmations: [{ id: 'n1', confirmedAt: ago(15) }], edges: [edge] });
    expect(await applyMemoryWrite(db, 'host-1', w)).toBe('applied');
    const first = (await loadMemory(db, key, { vocabulary: true })).screens[0]!;
    expect(await applyMemoryWrite(db, 'host-1', w)).toBe('repeated'); // the answer was lost; the worker sent it again
    const again = await loadMemory(db, key, { vocabulary: true });
    expect(again.edges.map((e) => e.count)).toEqual([1]);
    expect(again.screens).toEqual([first]);
    const [applied] = await tdb.query<{ n: number }>(`SELECT count(*)::int AS n FROM memory_writes WHERE id = $1`, [`host-1:${key.app}:r1`]);
    expect(applied!.n).toBe(1);
  });

  it('holds no more than 200 entries of vocabulary per screen', async () => {
    const key = freshKey();
    await applyMemoryWrite(db, 'host-1', write(key, 'b1', { screens: [settings(words('Notifications'), ago(1))] }));
    const many = JSON.stringify(Array.from({ length: 201 }, (_, i) => ({ role: 'text', label: `row ${i}`, tap: { x: 1, y: i } })));
    await expect(tdb.query(`UPDATE memory_screens SET vocabulary = $1 WHERE app = $2`, [many, key.app])).rejects.toThrow(/check constraint/);
  });
});
