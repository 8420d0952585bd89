// The gateway's end of one worker connection, over an in-memory socket pair, with the registry and
// the hub stood in for: what a command carries to the worker, and what a database outage does (and
// does not do) to a healthy worker's connection.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../openapi/contract.js';
import { DatabaseUnavailableError } from '../../server/db/database.js';
import type { HostRegistry } from '../../server/domain/hosts.js';
import { LOCAL_WORKER } from '../../server/domain/tokens.js';
import { createSocketPair } from '../../server/hub/memory-socket.js';
import { WorkerLink, type LinkOwner, type LinkTimings } from '../../server/hub/worker-link.js';
import { PauseWatch } from '../../server/domain/pauses.js';
import { blockFor, sleep, waitFor } from '../helpers/wait.js';

const owner: LinkOwner = {
  claim: async () => 'ok',
  release: () => undefined,
  owns: () => true,
  onProtocolError: () => undefined,
  onWorkerReport: () => undefined,
};
const hello = {
  type: 'hello',
  protocolVersion: PROTOCOL_VERSION,
  host: { id: 'host-1', name: 'host-1', os: 'linux', arch: 'x64', version: 't' },
  backends: [],
  devices: [],
};

/** A registered link, the worker's end of its socket, and everything the worker received. */
async function linked(registry: Partial<HostRegistry>, timings: Partial<LinkTimings> = {}, linkOwner: LinkOwner = owner) {
  const [gatewayEnd, workerEnd] = createSocketPair();
  const full = {
    register: async () => [],
    runReclaims: () => undefined,
    heartbeat: async () => true,
    reportDevices: async () => true,
    disconnect: async () => undefined,
    ...registry,
  } as unknown as HostRegistry;
  const link = new WorkerLink(
    gatewayEnd,
    LOCAL_WORKER,
    full,
    linkOwner,
    'gw-test',
    { heartbeatIntervalMs: 1000, hostTimeoutMs: 5000, helloTimeoutMs: 5000, ...timings },
    pino({ level: 'silent' }),
  );
  const received: Record<string, unknown>[] = [];
  let closedWith: number | undefined;
  workerEnd.on('message', (d: Buffer) => received.push(JSON.parse(d.toString()) as Record<string, unknown>));
  workerEnd.on('close', (code: number) => (closedWith = code));
  workerEnd.send(JSON.stringify(hello));
  await waitFor('registered', () => link.registered || undefined, 2000, 5).catch((err: Error) => {
    throw new Error(`${err.message}; the worker got ${JSON.stringify(received)}`);
  });
  return { link, workerEnd, received, closed: () => closedWith };
}

describe('a command sent to a worker', () => {
  it('a call carries the time the gateway waits for it (budgetMs); prepare and reset do not', async () => {
    const { link, received } = await linked({});
    void link.request({ type: 'call', localId: 'web-1', epoch: 1, method: 'action.run', params: {} }, 9876.4).catch(() => undefined);
    void link
      .request({ type: 'prepare', localId: 'web-1', epoch: 1, sessionId: 's', app: null, origins: { allow: [], deny: [] } } as never, 5000)
      .catch(() => undefined);
    await waitFor('both sent', () => (received.filter((m) => m.type !== 'welcome').length === 2 ? true : undefined), 2000, 5);
    const [call, prepare] = received.filter((m) => m.type !== 'welcome');
    expect(call).toMatchObject({ type: 'call', method: 'action.run', budgetMs: 9876 });
    expect(prepare).toMatchObject({ type: 'prepare' });
    expect(prepare).not.toHaveProperty('budgetMs');
    link.fail('SHUTTING_DOWN');
  });
});

describe('a database outage under a healthy worker', () => {
  it('skips a heartbeat it cannot record and keeps the connection; the next one is recorded', async () => {
    let beats = 0;
    const { workerEnd, received, closed, link } = await linked({
      heartbeat: async () => {
        beats++;
        if (beats === 1) throw new DatabaseUnavailableError('no database connection: connect ECONNREFUSED');
        return true;
      },
    });
    workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 1, sentAt: new Date().toISOString() }));
    workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 2, sentAt: new Date().toISOString() }));
    await waitFor('both acknowledged', () => (received.filter((m) => m.type === 'heartbeat-ack').length === 2 ? true : undefined), 2000, 5);
    expect(beats).toBe(2);
    expect(closed()).toBeUndefined();
    expect(link.registered).toBe(true);
    link.fail('SHUTTING_DOWN');
  });

  it('records a device report once the database is back, without closing', async () => {
    let tries = 0;
    const { workerEnd, closed, link } = await linked({
      reportDevices: async () => {
        tries++;
        if (tries < 3) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
        return true;
      },
    });
    workerEnd.send(JSON.stringify({ type: 'devices', backends: [], devices: [] }));
    await waitFor('recorded on the third try', () => (tries === 3 ? true : undefined), 5000, 10);
    expect(closed()).toBeUndefined();
    expect(link.registered).toBe(true);
    link.fail('SHUTTING_DOWN');
  });

  it('still closes with 1011 on a failure that is not an outage', async () => {
    const { workerEnd, closed } = await linked({
      heartbeat: async () => Promise.reject(Object.assign(new Error('value too long for type character varying(64)'), { code: '22001' })),
    });
    workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 1, sentAt: new Date().toISOString() }));
    await waitFor('closed', () => closed(), 2000, 5);
    expect(closed()).toBe(1011);
  });
});

describe("a worker's memory writes the database would not store", () => {
  const key = { team: 'qa', platform: 'web', app: 'sample@any' };
  const write = (id: string, name: string) => ({
    type: 'memory-write',
    id,
    key,
    generation: 0,
    screens: [{ id: 'n1', name, fingerprints: [{ hash: '1a2b3c4d', title: 'Settings', tokens: [] }], readings: 1 }],
    edges: [],
    escalations: [],
  });
  /** A memory handler that fails each write as told; the link's answer is what is under test. */
  const withMemory = (fail: (id: string) => Error | undefined) => {
    const written: string[] = [];
    const refused = { count: 0 };
    const linkOwner: LinkOwner = {
      ...owner,
      memory: {
        write: async (_host, msg) => {
          const err = fail(msg.id);
          if (err) throw err;
          written.push(msg.id);
          return true;
        },
        load: async () => ({ screens: [], edges: [], generation: 0 }),
        mayUse: async () => true,
        onRefused: () => refused.count++,
      },
    };
    return { linkOwner, written, refused };
  };
  const answers = async (received: Record<string, unknown>[], n: number) => {
    await waitFor(`${n} memory answers`, () => (received.filter((m) => m.type === 'memory').length >= n ? true : undefined), 2000, 5);
    return Object.fromEntries(received.filter((m) => m.type === 'memory').map((m) => [m.id, m])) as Record<
      string,
      { ok: boolean; error?: { code: string; message: string } }
    >;
  };

  it('refuses text holding NUL or half a surrogate pair as VALIDATION_FAILED naming the field, before the database sees it', async () => {
    const { linkOwner, written, refused } = withMemory(() => undefined);
    const { workerEnd, received, closed, link } = await linked({}, {}, linkOwner);
    workerEnd.send(JSON.stringify(write('nul', 'Set\u0000tings')));
    workerEnd.send(JSON.stringify(write('half', 'Inbox \ud83d')));
    workerEnd.send(JSON.stringify(write('fine', 'Inbox 📬')));
    const a = await answers(received, 3);
    expect(a.nul).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED', message: expect.stringContaining('screens[0].name') } });
    expect(a.half).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(a.fine).toMatchObject({ ok: true });
    expect(written).toEqual(['fine']);
    expect(refused.count).toBe(2); // simfleet_memory_writes_total{outcome="refused"}
    expect(closed()).toBeUndefined(); // a refused write is an answer, not a reason to drop the worker
    link.fail('SHUTTING_DOWN');
  });

  it("answers the database's refusal of the data (SQLSTATE 22, 23) as final, and an outage as a fault to retry", async () => {
    const { linkOwner } = withMemory((id) =>
      id === 'data'
        ? Object.assign(new Error('invalid input syntax for type json'), { code: '22P02' })
        : id === 'conflict'
          ? Object.assign(new Error('violates check constraint'), { code: '23514' })
          : new DatabaseUnavailableError('no database connection'),
    );
    const { workerEnd, received, link } = await linked({}, {}, linkOwner);
    for (const id of ['data', 'conflict', 'outage']) workerEnd.send(JSON.stringify(write(id, 'Inbox')));
    const a = await answers(received, 3);
    expect(a.data?.error?.code).toBe('VALIDATION_FAILED');
    expect(a.conflict?.error?.code).toBe('VALIDATION_FAILED');
    expect(a.outage?.error?.code).toBe('INTERNAL');
    link.fail('SHUTTING_DOWN');
  });
});

describe('a worker silent past the timeout', () => {
  it('is dropped (4408) when the gateway was listening all along', async () => {
    const pauses = new PauseWatch(pino({ level: 'silent' }));
    try {
      const { workerEnd, closed } = await linked({}, { hostTimeoutMs: 300, pauses });
      workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 1, sentAt: new Date().toISOString() }));
      await waitFor('closed', () => closed(), 3000, 5);
      expect(closed()).toBe(4408);
    } finally {
      pauses.stop();
    }
  });

  it('is not dropped for the time the gateway itself was paused: its heartbeat, read after the timer fired, keeps it', async () => {
    for (const watched of [true, false]) {
      const pauses = watched ? new PauseWatch(pino({ level: 'silent' })) : undefined;
      try {
        const { workerEnd, closed, link } = await linked({}, { hostTimeoutMs: 300, ...(pauses ? { pauses } : {}) });
        workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 1, sentAt: new Date().toISOString() }));
        await sleep(20); // real time here and below: the gateway's own event loop is stopped, which no virtual clock stages
        // The worker's next heartbeat is sent while the gateway is paused; the gateway reads it only
        // after its timers have run (a timer phase comes before the poll phase after a pause).
        setImmediate(() => workerEnd.send(JSON.stringify({ type: 'heartbeat', seq: 2, sentAt: new Date().toISOString() })));
        blockFor(700);
        await sleep(200); // within the timeout of listening since the heartbeat was read
        if (watched) {
          expect(closed()).toBeUndefined();
          expect(link.registered).toBe(true);
          link.fail('SHUTTING_DOWN');
        } else {
          // Without the watch, the clock alone judges: the check above is one that can fail.
          await waitFor('closed', () => closed(), 2000, 5);
          expect(closed()).toBe(4408);
        }
      } finally {
        pauses?.stop();
      }
    }
  });
});
