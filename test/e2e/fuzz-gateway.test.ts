// A malicious gateway against a real worker process, over real WebSockets: the other direction of
// the protocol fuzz. Every message type the gateway sends (welcome, heartbeat-ack, error, prepare,
// reset, call, memory) with each field replaced by hostile values, plus frames that are not JSON,
// binary, truncated or huge; and messages that are valid but aimed wrong: commands for devices the
// host does not have, stale epochs, calls with junk parameters, answers to questions never asked,
// welcome after welcome. The worker must stay up, close a connection only with a protocol code and
// redial, answer every valid command with a typed result, not multiply its heartbeats, and still
// prepare a device cleanly at the end.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { document, PROTOCOL_VERSION } from '../../openapi/contract.js';
import { killAll, spawnSimfleet, type SimfleetProcess } from '../helpers/processes.js';
import { sleep, waitFor } from '../helpers/wait.js';

const HOSTILE: unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  2 ** 53 + 2,
  '',
  '\u0000',
  '\uD800',
  'x'.repeat(20_000),
  [],
  [null],
  {},
  { a: { b: { c: {} } } },
  Array.from({ length: 3000 }, () => 1),
];
const ERROR_CODES = new Set((document as { components: { schemas: { ErrorCode: { enum: string[] } } } }).components.schemas.ErrorCode.enum);
const HEARTBEAT_MS = 200;

let server: WebSocketServer;
let worker: SimfleetProcess;
let hostId = '';
let current: { ws: WebSocket; inbox: Record<string, unknown>[]; closed: Promise<number> } | undefined;
let connections = 0;
const closeCodes = new Map<number, number>();

const welcome = () => ({
  type: 'welcome',
  protocolVersion: PROTOCOL_VERSION,
  hostId,
  gatewayId: 'gw-evil',
  heartbeatIntervalMs: HEARTBEAT_MS,
  hostTimeoutMs: 60_000,
});

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  server.on('connection', (ws) => {
    connections++;
    const inbox: Record<string, unknown>[] = [];
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    void closed.then((code) => closeCodes.set(code, (closeCodes.get(code) ?? 0) + 1));
    ws.on('message', (d) => {
      const msg = JSON.parse(d.toString()) as Record<string, unknown>;
      if (msg.type === 'hello') {
        hostId = (msg.host as { id: string }).id;
        ws.send(JSON.stringify(welcome()));
      }
      // A gateway that never acknowledges is a dead one to the worker (it redials after a silence).
      if (msg.type === 'heartbeat') ws.send(JSON.stringify({ type: 'heartbeat-ack', seq: msg.seq }));
      inbox.push(msg);
    });
    ws.on('error', () => undefined);
    current = { ws, inbox, closed };
  });
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  worker = spawnSimfleet(['worker'], {
    SIMFLEET_GATEWAY_URL: `http://127.0.0.1:${port}`,
    SIMFLEET_WORKER_TOKEN: 'sf_evil_gateway_token_0123456789',
    SIMFLEET_DATA_DIR: await mkdtemp(join(tmpdir(), 'sf-evilgw-')),
    SIMFLEET_FAKE_DEVICES: '2',
    SIMFLEET_RECONNECT_MIN_MS: '10',
    SIMFLEET_RECONNECT_MAX_MS: '40',
  });
  await waitFor('the worker says hello', () => hostId !== '' || undefined, 20_000);
}, 120_000); // setup beside other suites on 2 cores can take over a minute
afterAll(async () => {
  await killAll();
  await new Promise((r) => server.close(r));
});

/** The current connection, once the worker has said hello on it and got its welcome. */
async function connected(): Promise<NonNullable<typeof current>> {
  return waitFor(
    'a connection with a hello',
    () => (current && current.ws.readyState === 1 && current.inbox.some((m) => m.type === 'hello') ? current : undefined),
    10_000,
    5,
  );
}

/** Sends one message and waits for a result with its id (or for the worker to close on it). */
async function command(msg: Record<string, unknown>, timeoutMs = 10_000): Promise<Record<string, unknown> | { closed: number }> {
  const c = await connected();
  c.ws.send(JSON.stringify(msg));
  const result = await Promise.race([
    waitFor(`the result of ${JSON.stringify(msg).slice(0, 160)}`, () => c.inbox.find((m) => m.type === 'result' && m.id === msg.id), timeoutMs, 5),
    c.closed.then((code) => ({ closed: code })),
  ]);
  return result;
}

const device = (n: number) => `fake-${n}`;
const VALID: Record<string, () => Record<string, unknown>> = {
  welcome,
  'heartbeat-ack': () => ({ type: 'heartbeat-ack', seq: 1 }),
  error: () => ({ type: 'error', code: 'INTERNAL', message: 'm', hint: 'h' }),
  prepare: () => ({
    type: 'prepare',
    id: 'p1',
    localId: device(1),
    epoch: 1,
    sessionId: 's1',
    app: null,
    origins: { allowedOrigins: ['*'], allowPrivate: false },
  }),
  reset: () => ({ type: 'reset', id: 'r1', localId: device(1), epoch: 1 }),
  call: () => ({ type: 'call', id: 'c1', localId: device(1), epoch: 1, method: 'screen.read', team: 'default', params: {} }),
  memory: () => ({ type: 'memory', id: 'm1', ok: true }),
};

describe('a malicious gateway', () => {
  it('cannot crash the worker: hostile fields, broken frames and misaimed commands get a protocol close or a typed result', async () => {
    let inputs = 0;
    // Frames that are not messages at all: each must close the connection with 4400, never crash.
    for (const raw of ['{', 'null', '[]', '"welcome"', '{"type":"nope"}', 'x'.repeat(200_000), '\uD800']) {
      const c = await connected();
      c.ws.send(raw);
      inputs++;
      expect(await c.closed).toBe(4400);
    }
    {
      const c = await connected();
      c.ws.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
      inputs++;
      expect(await c.closed).toBe(4400);
    }
    // Every field of every message type, replaced by each hostile value (and removed, and one added).
    for (const [type, build] of Object.entries(VALID)) {
      const base = build();
      for (const field of [...Object.keys(base), 'extra']) {
        for (const value of [...HOSTILE, undefined]) {
          if (field === 'extra' && value === undefined) continue;
          const msg: Record<string, unknown> = { ...base, id: `${type}-${inputs}` };
          if (!('id' in base)) delete msg.id;
          if (value === undefined) delete msg[field];
          else msg[field] = value;
          const c = await connected();
          c.ws.send(JSON.stringify(msg));
          inputs++;
          // Either the worker refuses it as outside the protocol (and redials), or it is valid after
          // all and, for a command, answered with a typed result.
          const isCommand = type === 'prepare' || type === 'reset' || type === 'call';
          // The worker reads in order: a probe that gets its answer means the message before it
          // was taken (a close before that answer means it was refused).
          const probe = `probe-${inputs}`;
          if (!isCommand) c.ws.send(JSON.stringify({ type: 'reset', id: probe, localId: 'no-such-device', epoch: 1 }));
          const awaited = isCommand ? msg.id : probe;
          const answered = waitFor('a result', () => c.inbox.some((m) => m.type === 'result' && m.id === awaited) || undefined, 5000, 2).then(() => null);
          const outcome = await Promise.race([c.closed.then((code) => ({ closed: code })), answered]);
          if (outcome) expect(outcome.closed, `${type}.${field} = ${JSON.stringify(value)?.slice(0, 40)}`).toBe(4400);
          else if (isCommand) {
            const result = c.inbox.find((m) => m.type === 'result' && m.id === msg.id) as { ok: boolean; error?: { code: string } };
            if (!result.ok) expect(ERROR_CODES.has(result.error!.code), `${type}.${field}: ${result.error!.code}`).toBe(true);
          }
        }
      }
    }
    // Every call method with hostile parameters, under a lease the device really holds (so the
    // parameters are read, not refused for the epoch): a typed answer each, never a crash.
    const lease = await command({ ...VALID.prepare!(), id: 'lease-100', epoch: 100, sessionId: 'fuzz' });
    expect(lease, JSON.stringify(lease)).toMatchObject({ ok: true });
    const answered = new Map<string, number>();
    const METHODS = [
      'perception.mark',
      'perception.changes',
      'perception.wait',
      'screen.read',
      'screen.locate',
      'screen.look',
      'action.run',
      'steps.run',
      'events.read',
      'screen.live',
    ];
    // Long polls clamp a hostile wait to their 30 s ceiling: every method's calls run side by side
    // (method after method, the long polls alone took a minute and a half under load).
    const calls = METHODS.flatMap((method) =>
      HOSTILE.flatMap((value, i) =>
        [{ x: value }, { since: value, for: value, target: value, action: value, steps: value, after: value, waitMs: value }].map((params, j) => ({
          ...VALID.call!(),
          id: `${method}-${i}-${j}`,
          epoch: 100,
          method,
          params,
        })),
      ),
    );
    const outs = await Promise.all(calls.map((msg) => command(msg, 40_000)));
    inputs += calls.length;
    for (const [i, out] of outs.entries()) {
      const method = calls[i]!.method;
      expect('closed' in out, `${method} closed on ${JSON.stringify(calls[i]!.params).slice(0, 80)}`).toBe(false);
      const r = out as { ok: boolean; error?: { code: string } };
      if (!r.ok) expect(ERROR_CODES.has(r.error!.code), `${method}: ${r.error!.code}`).toBe(true);
      const k = r.ok ? 'ok' : r.error!.code;
      answered.set(k, (answered.get(k) ?? 0) + 1);
    }
    console.log(JSON.stringify({ hostileCallAnswers: Object.fromEntries(answered) }));
    expect(answered.get('STALE_LEASE') ?? 0, 'the calls reached their parameters').toBe(0);
    // Valid messages aimed wrong: each answered with a typed refusal, the connection kept.
    const misaimed: Record<string, unknown>[] = [
      { ...VALID.prepare!(), id: 'a1', localId: 'no-such-device' },
      { ...VALID.reset!(), id: 'a2', localId: 'no-such-device' },
      { ...VALID.call!(), id: 'a3', epoch: 99 }, // a lease the device does not have
      { ...VALID.call!(), id: 'a4', localId: 'no-such-device' },
      { ...VALID.call!(), id: 'a5', method: 'action.run', params: { action: { tap: 1 }, target: ['x'] } },
      { ...VALID.call!(), id: 'a6', method: 'perception.wait', params: { for: 'forever', timeoutMs: -5 } },
      { ...VALID.call!(), id: 'a7', method: 'steps.run', params: { steps: 'all of them' } },
      { ...VALID.call!(), id: 'a8', method: 'screen.look', params: { crop: { x: 'a' }, scale: 1e9 } },
      { ...VALID.call!(), id: 'a9', method: 'events.read', params: { after: -1, max: 1e12 } },
    ];
    for (const msg of misaimed) {
      const out = await command(msg);
      inputs++;
      expect('closed' in out ? out : out.ok, JSON.stringify(msg).slice(0, 120)).toBe(false);
      const code = (out as { error?: { code: string } }).error?.code ?? '';
      expect(ERROR_CODES.has(code), `${msg.id} answered ${code}`).toBe(true);
    }
    // Answers to questions never asked, and errors, are ignored: the connection stays.
    const c = await connected();
    for (let i = 0; i < 50; i++) {
      c.ws.send(JSON.stringify({ type: 'memory', id: `never-${i}`, ok: true, screens: [], edges: [] }));
      c.ws.send(JSON.stringify({ type: 'error', code: 'INTERNAL', message: 'x'.repeat(5000), hint: '' }));
      inputs += 2;
    }
    await sleep(300);
    expect(c.ws.readyState).toBe(1);
    console.log(JSON.stringify({ maliciousGatewayInputs: inputs, connections, closes: Object.fromEntries(closeCodes) }));
    expect(inputs).toBeGreaterThan(1000);
    expect(worker.proc.exitCode).toBeNull();
    expect([...closeCodes.keys()].every((code) => code === 4400)).toBe(true);
  }, 300_000);

  it('does not multiply its heartbeats when welcomed again and again', async () => {
    const c = await connected();
    for (let i = 0; i < 20; i++) c.ws.send(JSON.stringify(welcome()));
    await sleep(300);
    const before = c.inbox.filter((m) => m.type === 'heartbeat').length;
    await sleep(10 * HEARTBEAT_MS);
    const beats = c.inbox.filter((m) => m.type === 'heartbeat').length - before;
    expect(beats).toBeGreaterThanOrEqual(7);
    expect(beats).toBeLessThanOrEqual(13);
  });

  it('still prepares and resets a device cleanly afterwards', async () => {
    const prepared = await command({ ...VALID.prepare!(), id: 'final-prepare', localId: device(2), epoch: 5, sessionId: 'final' });
    expect(prepared).toMatchObject({ ok: true });
    const reset = await command({ type: 'reset', id: 'final-reset', localId: device(2), epoch: 5 });
    expect(reset).toMatchObject({ ok: true });
    expect(worker.proc.exitCode).toBeNull();
  });
});
