// Fuzzing the REST surface: every operation of the contract, with hostile inputs built from a valid
// call — each field (at every depth) replaced by a wrong type, a huge string or array, deep nesting,
// unicode edge cases, negative and enormous numbers; fields dropped and added; the whole body
// replaced; JSON truncated; invalid UTF-8; hostile path segments and queries — at least 10,000
// requests. Not one may answer 5xx, and every refusal must be the contract's error shape with a
// code from the error table. The gateway must still be serving at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIndex, parameterSchemas, schemaValidator, type OperationId, type Schemas } from '../../openapi/contract.js';
import { startFarm, type Farm } from '../helpers/farm.js';

const isError = schemaValidator<Schemas['Error']>('Error');
const TARGET = 10_000;

/** A valid call of each operation that takes a body: the starting point of its mutations. */
const VALID: Partial<Record<OperationId, unknown>> = {
  createToken: { name: 'fuzz', role: 'viewer', team: 'fuzz' },
  createSession: { platform: 'web', waitSeconds: 0, device: { labels: ['fake'] }, ttlSeconds: 60 },
  renewSession: { ttlSeconds: 60 },
  waitForScreen: { for: 'settled', timeoutMs: 100, quietMs: 50 },
  locateElement: { target: 'Settings', role: 'button' },
  runAction: { action: 'tap', target: 'Settings', timeoutMs: 200 },
  runSteps: {
    steps: [
      { action: 'tap', target: 'Settings', timeoutMs: 200 },
      { action: 'wait', for: 'settled', timeoutMs: 100 },
    ],
  },
  startRecording: { name: 'fuzz-flow' },
  replayFlow: { flow: 'fuzz-flow', from: 0 },
  runMaestro: { flow: 'appId: x\n---\n- back\n' },
  setPermission: { action: 'grant', permission: 'location' },
  putTeam: { weight: 1, maxConcurrentSessions: 2 },
};
/** Operations whose valid call would end or remove what the rest fuzz against: their ids are always fuzzed. */
const DESTRUCTIVE = new Set<OperationId>([
  'releaseSession',
  'deleteFlow',
  'forgetApp',
  'revokeToken',
  'cancelQueued',
  'discardRecording',
  'resetDevice',
  'putTeam',
]);

const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
const HOSTILE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -0.5,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  -(2 ** 63),
  '',
  ' ',
  '0',
  '-1',
  'NaN',
  'true',
  'null',
  '\u0000',
  '\uD800',
  '\uDFFF\uD800',
  '\u202E\u202D',
  '\uFEFF',
  'ﷺ',
  'e\u0301',
  'Ω≈ç√∫',
  '😀'.repeat(200),
  'x'.repeat(3000),
  'x'.repeat(70_000),
  '../../../etc/passwd',
  '%00%2e%2e',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  'ses_0000000000',
  '#1',
  '@99999',
  [],
  [null],
  Array.from({ length: 5000 }, (_, i) => i),
  [[[[[[[[]]]]]]]],
  {},
  { __proto__: { admin: true } },
  { constructor: { prototype: {} } },
  deep(200),
  deep(2000),
];
const PATH_HOSTILE = ['x', '%00', '..%2F..%2Fetc', 'x'.repeat(5000), '%F0%9F%98%80', '%FF%FE', `ses_${'a'.repeat(40)}`, ' ', '%2F', 'null'];
const TRUNCATIONS = [1, 2, 5, 10, 20, 40];

let farm: Farm;
let token: string;
const params: Record<string, string> = {};

beforeAll(async () => {
  // The farm helper's 1 s host timeout is for the liveness tests. Here the gateway, its worker and
  // the fuzzer share one process, and 10,000 requests (bodies of megabytes, deep nesting) on a busy
  // CI machine once stalled it past that second: the gateway dropped its healthy worker and nine
  // requests answered 503 HOST_UNREACHABLE. The defaults are 5 s and 30 s; 1 s and 10 s keep it quick.
  farm = await startFarm({ SIMFLEET_HEARTBEAT_INTERVAL_MS: '1000', SIMFLEET_HOST_TIMEOUT_MS: '10000' });
  await farm.addWorker(2);
  token = farm.admin.token!;
  const agent = await farm.token('agent', 'fuzz');
  const session = (await agent.call('createSession', { body: { platform: 'web', ttlSeconds: 3600, idleTimeoutSeconds: 3600 } })).body;
  params.sessionId = session.id;
  const devices = (await farm.admin.call('listDevices')).body.devices;
  params.deviceId = devices[0].id;
  params.hostId = devices[0].hostId;
  params.tokenId = 'tok_0000000000';
  params.flowName = 'fuzz-flow';
  params.appId = 'bm8tc3VjaC1hcHA';
  params.team = 'fuzz';
  token = agent.token!; // the agent acts on its own session; the admin's routes are fuzzed as admin below
}, 120_000); // setup beside other suites on 2 cores can take over a minute
afterAll(async () => farm?.stop());

interface Case {
  op: OperationId;
  path: string;
  query?: Record<string, string>;
  body?: string | Buffer;
  contentType?: string;
  what: string;
}

/** Every path into a value, with the value there (for nested mutations). */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return [at, ...v.flatMap((x, i) => paths(x, [...at, i]))];
  if (v && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k]))];
  return [at];
}
function setAt(v: unknown, at: (string | number)[], value: unknown, drop = false): unknown {
  if (at.length === 0) return value;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = at;
  if (rest.length === 0 && drop) delete copy[head!];
  else copy[head!] = setAt(copy[head!], rest, value, drop);
  return copy;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const [op, info] of operationIndex) {
    if (info.websocket || info.roles === 'public') continue;
    const pathNames = [...info.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const fill = (over: Record<string, string> = {}) =>
      info.path.replace(/\{(\w+)\}/g, (_, n: string) => (n in over ? over[n]! : encodeURIComponent(DESTRUCTIVE.has(op) ? `fuzz-${n}` : (params[n] ?? 'x'))));
    for (const name of pathNames) for (const bad of PATH_HOSTILE) out.push({ op, path: fill({ [name]: bad }), what: `path ${name}=${bad.slice(0, 20)}` });
    const query = Object.keys(parameterSchemas(op).query?.properties ?? {});
    for (const q of query)
      for (const bad of HOSTILE)
        out.push({
          op,
          path: fill(),
          query: { [q]: typeof bad === 'string' ? bad.slice(0, 4000) : (JSON.stringify(bad)?.slice(0, 4000) ?? '') },
          what: `query ${q}`,
        });
    if (!info.spec.requestBody) {
      out.push({ op, path: fill(), body: JSON.stringify({ unexpected: 'body' }), contentType: 'application/json', what: 'a body where none is taken' });
      continue;
    }
    const valid = VALID[op] ?? {};
    const json = JSON.stringify(valid);
    for (const at of paths(valid)) {
      for (const bad of HOSTILE)
        out.push({
          op,
          path: fill(),
          body: JSON.stringify(setAt(valid, at, bad)),
          contentType: 'application/json',
          what: `${at.join('.') || 'body'} = hostile`,
        });
      if (at.length)
        out.push({
          op,
          path: fill(),
          body: JSON.stringify(setAt(valid, at, undefined, true)),
          contentType: 'application/json',
          what: `${at.join('.')} dropped`,
        });
    }
    for (const bad of HOSTILE.slice(0, 20))
      out.push({ op, path: fill(), body: JSON.stringify({ ...(valid as object), extra: bad }), contentType: 'application/json', what: 'an extra field' });
    for (const n of TRUNCATIONS)
      out.push({ op, path: fill(), body: json.slice(0, Math.max(1, json.length - n)), contentType: 'application/json', what: `truncated by ${n}` });
    out.push({
      op,
      path: fill(),
      body: Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]),
      contentType: 'application/json',
      what: 'invalid UTF-8',
    });
    out.push({ op, path: fill(), body: json, contentType: 'text/plain', what: 'JSON sent as text/plain' });
    out.push({ op, path: fill(), body: json, contentType: 'application/json; charset=latin1', what: 'another charset' });
    out.push({ op, path: fill(), body: '', contentType: 'application/json', what: 'an empty body' });
  }
  return out;
}

/** Deterministic: the same cases on every run, shuffled into a fixed order and repeated to the target. */
function plan(): Case[] {
  const all = cases();
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out = [...all];
  while (out.length < TARGET) out.push(all[Math.floor(rand() * all.length)]!);
  return out;
}

describe('fuzzing the REST surface', () => {
  it(`answers ${TARGET}+ hostile requests without a 5xx, each refusal in the contract's error shape`, async () => {
    const planned = plan();
    const wrong: string[] = [];
    const statuses = new Map<number, number>();
    const run = async (c: Case) => {
      const info = operationIndex.get(c.op)!;
      const url = new URL(c.path, farm.gateway.url);
      for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v);
      const asAdmin = Array.isArray(info.roles) && !info.roles.includes('agent');
      const res = await fetch(url, {
        method: info.method,
        headers: { authorization: `Bearer ${asAdmin ? farm.admin.token : token}`, ...(c.contentType ? { 'content-type': c.contentType } : {}) },
        ...(c.body !== undefined && info.method !== 'GET' ? { body: c.body as string } : {}),
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      if (res.status >= 500) wrong.push(`${c.op} ${c.what}: ${res.status} ${text.slice(0, 200)}`);
      if (res.status >= 400) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        if (!isError(body)) wrong.push(`${c.op} ${c.what}: ${res.status} not in the error shape: ${text.slice(0, 200)}`);
      }
    };
    // Four at a time: a little concurrency, as real clients bring.
    for (let i = 0; i < planned.length; i += 4) await Promise.all(planned.slice(i, i + 4).map(run));
    console.log(
      `fuzzed ${planned.length} requests over ${new Set(planned.map((c) => c.op)).size} operations: ${[...statuses]
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    expect([...new Set(wrong.map((w) => w.replace(/requestId[^}]*/, '').slice(0, 220)))].slice(0, 30)).toEqual([]);
    expect(planned.length).toBeGreaterThanOrEqual(TARGET);
    expect((await farm.admin.call('getHealth')).status).toBe(200);
    expect((await farm.admin.call('getSession', { params: { sessionId: params.sessionId! } })).status).toBe(200);
  }, 300_000);
});
