// Memory written behind to the farm (workers/memory/sync.ts), over an in-memory stand-in for the
// gateway link: a write that is not acknowledged is kept, frozen, and retried with backoff under the
// same id (so the gateway applies it once); the action path never waits on the link; and a drain on
// shutdown sends what is pending, without outliving its deadline when the link does not answer.
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { AppMemory } from '../../workers/memory/app-memory.js';
import { type MemoryChannel, type MemoryKey, MemorySync } from '../../workers/memory/sync.js';
import { LATE, within } from '../../workers/within.js';

type Write = Schemas['WorkerMemoryWrite'];
/** What the stand-in does with one write: `lost` applies it but the answer never arrives. */
type Answer = 'ok' | 'down' | 'refused' | 'invalid' | 'forbidden' | 'lost' | 'silent';

/**
 * The gateway as the worker sees it: applies a write's id once (as memory_writes does) and answers
 * ok for a repeat; `down` rejects at once (no link), `silent` rejects after the request's timeout
 * (the link's behaviour when no answer comes).
 */
class GatewayStandIn implements MemoryChannel {
  readonly sent: Write[] = [];
  readonly applied = new Map<string, Write>();
  constructor(readonly answers: Answer[] = []) {}

  async memory(msg: Write | Schemas['WorkerMemoryLoad'], timeoutMs: number): Promise<Schemas['GatewayMemoryReply']> {
    if (msg.type !== 'memory-write') return { type: 'memory', id: msg.id, ok: true, screens: [], edges: [], generation: 0 };
    this.sent.push(structuredClone(msg));
    const answer = this.answers.shift() ?? 'ok';
    if (answer === 'down') throw new Error('not connected to a gateway');
    if (answer === 'silent') return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref());
    if (answer === 'refused') return { type: 'memory', id: msg.id, ok: false, error: { code: 'INTERNAL', message: 'the database is away' } };
    if (answer === 'invalid')
      return {
        type: 'memory',
        id: msg.id,
        ok: false,
        error: { code: 'VALIDATION_FAILED', message: 'screens[0].name holds a character that cannot be stored' },
      };
    if (answer === 'forbidden')
      return { type: 'memory', id: msg.id, ok: false, error: { code: 'FORBIDDEN', message: 'host h serves no session of team team-a' } };
    if (!this.applied.has(msg.id)) this.applied.set(msg.id, msg);
    if (answer === 'lost') throw new Error(`no answer within ${timeoutMs} ms`);
    return { type: 'memory', id: msg.id, ok: true };
  }

  /** Traversals the farm holds: the sum of applied edge increments. */
  traversals(): number {
    return [...this.applied.values()].flatMap((w) => w.edges).reduce((n, e) => n + e.count, 0);
  }
}

const KEY: MemoryKey = { team: 'team-a', platform: 'web', app: 'sample@any' };
const logger = pino({ level: 'silent' });
const edge = (to: string) => ({ from: 'settings', action: 'tap #link-privacy', to, count: 1, verified: 1, durations: [240], kinds: { push: 1 } });
const screen = (id: string) => ({ id, name: 'Privacy', fingerprints: [{ hash: 'abcd', title: 'Privacy', tokens: ['e:top:heading'] }], readings: 1 });

afterEach(() => {
  vi.useRealTimers();
});

describe('memory written behind', () => {
  it('keeps a write the gateway did not acknowledge, and retries it frozen, under its id, with backoff, until applied once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // the backoff is read from the clock; the clock is moved by hand
    const gateway = new GatewayStandIn(['down', 'refused', 'lost', 'ok', 'ok']);
    const sync = new MemorySync(gateway, logger);
    const t0 = Date.now();
    const at = async (ms: number) => {
      vi.setSystemTime(t0 + ms);
      await sync.flush();
    };
    sync.screen(KEY, 0, screen('privacy'));
    sync.edge(KEY, 0, edge('privacy'));
    sync.edge(KEY, 0, edge('privacy'));

    await at(0); // link down: kept, retried after 0.5 s
    expect(gateway.sent).toHaveLength(1);
    expect(sync.pending).toBe(1);
    await at(499);
    expect(gateway.sent).toHaveLength(1); // not before its backoff
    // Learned while the first batch waits: a batch of its own, so the retry is the same write.
    sync.edge(KEY, 0, edge('privacy'));
    await at(500); // refused (Postgres away): the backoff doubles to 1 s
    expect(gateway.sent).toHaveLength(2);
    await at(1499);
    expect(gateway.sent).toHaveLength(2);
    await at(1500); // applied, but the answer lost (the backoff doubles to 2 s)...
    await at(3499);
    expect(gateway.sent).toHaveLength(3);
    await at(3500); // ...so sent again: acknowledged as a repeat, then the later batch goes
    expect(gateway.sent).toHaveLength(5);

    const [first, ...retries] = gateway.sent.slice(0, 4);
    for (const r of retries) expect(r).toEqual(first); // same id, same contents
    expect(first!.edges).toEqual([{ ...edge('privacy'), count: 2, verified: 2, durations: [240, 240], kinds: { push: 2 } }]); // one edge, taken twice
    expect(gateway.sent[4]!.id).not.toBe(first!.id);
    expect(gateway.applied.size).toBe(2);
    expect(gateway.traversals()).toBe(3); // each traversal once: none lost, none doubled by the retries
    expect(sync.pending).toBe(0);
    expect(sync.counts).toMatchObject({ written: 2, retried: 3 });
    await at(60_000);
    expect(gateway.sent).toHaveLength(5); // nothing acknowledged is sent again
  });

  it('never makes the action path wait: what is learned is usable at once while the link hangs', async () => {
    const gateway = new GatewayStandIn(['silent', 'silent']);
    const sync = new MemorySync(gateway, logger);
    const memory = new AppMemory(KEY, sync);
    memory.recordEdge('settings', 'tap #link-privacy', 'privacy', { durationMs: 240, kind: 'push', verified: true });
    const inFlight = sync.flush(); // the link does not answer (for 5 s, the request's timeout)
    expect(gateway.sent).toHaveLength(1);

    const t0 = performance.now();
    for (let i = 0; i < 500; i++) {
      const e = memory.recordEdge('settings', 'tap #link-privacy', 'privacy', { durationMs: 240, kind: 'push', verified: true });
      expect(e).not.toBeInstanceOf(Promise);
    }
    const escalated = memory.escalate({ reason: 'unknown-screen', screen: 'privacy', evidence: {}, costMs: 3 });
    expect(escalated).not.toBeInstanceOf(Promise);
    expect(performance.now() - t0).toBeLessThan(1000); // a generous ceiling: no network wait in it
    expect(memory.graph.predict('settings', 'tap #link-privacy')).toEqual({ to: 'privacy', count: 501, verified: 501 });
    // A second flush joins the one in flight instead of sending again; the new changes wait their turn.
    expect(sync.flush()).toBe(inFlight);
    expect(gateway.sent).toHaveLength(1);
    expect(sync.pending).toBe(2);
    expect(await within(inFlight, 50)).toBe(LATE);
  });

  it('sends what is pending on shutdown at once, whatever the backoff, and resolves', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // the clock stands still: a backoff would never run out by itself
    const gateway = new GatewayStandIn(['down']);
    const sync = new MemorySync(gateway, logger);
    sync.edge(KEY, 0, edge('privacy'));
    await sync.flush(); // down: backoff 0.5 s
    sync.screen(KEY, 0, screen('privacy'));
    sync.escalation(KEY, 0, { reason: 'unknown-screen', screen: 'privacy', evidence: {}, costMs: 3, at: new Date().toISOString() });
    expect(sync.pending).toBe(2);

    expect(await within(sync.drain(5000), 2000)).toBe(true);
    expect(sync.pending).toBe(0);
    const applied = [...gateway.applied.values()];
    expect(applied.flatMap((w) => w.edges)).toHaveLength(1);
    expect(applied.flatMap((w) => w.screens.map((s) => s.id))).toEqual(['privacy']);
    expect(applied.flatMap((w) => w.escalations.map((e) => e.reason))).toEqual(['unknown-screen']);
  });

  it('gathers what it learns while the gateway is away in one open batch, instead of a frozen batch per try', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const gateway = new GatewayStandIn(Array.from({ length: 60 }, () => 'down' as const));
    const sync = new MemorySync(gateway, logger);
    const t0 = Date.now();
    sync.screen(KEY, 0, screen('privacy'));
    for (let minute = 0; minute < 10; minute++) {
      // A minute of an outage: the same few screens and edges over and over, and a try every 10 s.
      for (let i = 0; i < 50; i++) {
        sync.screen(KEY, 0, screen(i % 2 ? 'privacy' : 'settings'));
        sync.edge(KEY, 0, edge(i % 2 ? 'privacy' : 'settings'));
      }
      for (let s = 0; s < 6; s++) {
        vi.setSystemTime(t0 + minute * 60_000 + s * 10_000 + 10_000);
        await sync.flush();
      }
    }
    // Before, each try froze what had been learned since into a batch of its own: here one per
    // minute of learning, 10 in all, and one per try for a worker learning all the time.
    expect(sync.pending).toBe(2); // the first batch, still unacknowledged, and what gathered since
    gateway.answers.length = 0; // the gateway is back
    vi.setSystemTime(t0 + 3600_000);
    await sync.flush();
    expect(sync.pending).toBe(0);
    const later = gateway.sent.at(-1)!;
    expect(later.screens.map((s) => s.id).sort()).toEqual(['privacy', 'settings']);
    expect(gateway.traversals()).toBe(500); // every traversal, once
  });

  it('keeps the newest 1,000 escalations of an app while the gateway is away, and counts what it lets go', async () => {
    const gateway = new GatewayStandIn(['down']);
    const sync = new MemorySync(gateway, logger);
    sync.escalation(KEY, 0, { reason: 'unknown-screen', screen: 's-first', evidence: {}, costMs: 1, at: new Date().toISOString() });
    await sync.flush(); // down: the first is frozen, the rest gather
    for (let i = 0; i < 1500; i++)
      sync.escalation(KEY, 0, { reason: 'unknown-screen', screen: `s-${i}`, evidence: {}, costMs: 1, at: new Date().toISOString() });
    expect(sync.counts.escalationsLetGo).toBe(500);
    expect(await sync.drain(5000)).toBe(true);
    const screens = [...gateway.applied.values()].flatMap((w) => w.escalations.map((e) => e.screen));
    expect(screens).toHaveLength(1001);
    expect(screens[0]).toBe('s-first');
    expect(screens[1]).toBe('s-500');
    expect(screens.at(-1)).toBe('s-1499');
  });

  it('drops a write refused for what it holds and goes on with the ones behind it, without backing off', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // the clock stands still: a backoff would hold everything behind it
    const gateway = new GatewayStandIn(['invalid', 'forbidden', 'ok']);
    const sync = new MemorySync(gateway, logger);
    const other: MemoryKey = { ...KEY, app: 'other@any' };
    sync.screen(KEY, 0, screen('privacy'));
    sync.screen(other, 0, screen('inbox'));
    sync.edge({ ...KEY, app: 'third@any' }, 0, edge('privacy'));
    await sync.flush();
    // Before, the first refusal backed off and was retried first, for ever: the writes behind it
    // (other apps of the same worker) never went.
    expect(gateway.sent.map((w) => w.key.app)).toEqual(['sample@any', 'other@any', 'third@any']);
    expect(gateway.applied.size).toBe(1);
    expect(sync.pending).toBe(0);
    expect(sync.counts).toMatchObject({ written: 1, dropped: 2, retried: 0 });
    await sync.flush();
    expect(gateway.sent).toHaveLength(3); // a dropped write is not sent again
  });

  it('sends text from pages as the database can store it: no NUL, no half of a surrogate pair', async () => {
    const gateway = new GatewayStandIn(['ok']);
    const sync = new MemorySync(gateway, logger);
    const emoji = '📬';
    sync.screen(KEY, 0, {
      ...screen('inbox'),
      name: `In\u0000box ${emoji.charAt(0)}`,
      vocabulary: [{ role: 'button', label: `Archive ${emoji}`, tap: { x: 1, y: 2 } }],
    });
    sync.escalation(KEY, 0, { reason: 'unknown-screen', screen: 'inbox', evidence: { 'k\u0000ey': ['x\udc00'] }, costMs: 3, at: new Date().toISOString() });
    await sync.flush();
    const [sent] = gateway.sent;
    expect(sent!.screens[0]!.name).toBe('Inbox \ufffd');
    expect(sent!.screens[0]!.vocabulary![0]!.label).toBe(`Archive ${emoji}`); // a whole pair is kept
    expect(sent!.escalations[0]!.evidence).toEqual({ key: ['x\ufffd'] });
  });

  it('gives up on a link that does not answer at its deadline, keeping the write unacknowledged', async () => {
    const gateway = new GatewayStandIn(['silent']);
    const sync = new MemorySync(gateway, logger);
    sync.edge(KEY, 0, edge('privacy'));
    // The link would answer "no answer" only after its 5 s timeout; the drain's deadline is 0.2 s.
    const drained = await within(sync.drain(200), 2000);
    expect(drained).toBe(false);
    expect(sync.pending).toBe(1);
    expect(gateway.applied.size).toBe(0);
  });
});
