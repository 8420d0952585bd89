// The REST surface of a gateway on a real Postgres: authorisation driven by the contract, the
// token lifecycle, and bad input. Every response body is checked against the contract's schema.
import { mkdtemp, stat, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { operationIndex, type OperationId, type Role } from '../../openapi/contract.js';
import { loadGatewayConfig } from '../../server/config.js';
import { startGateway, type Gateway } from '../../server/gateway.js';
import { api } from '../helpers/api.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

let db: TestDatabase;
let gateway: Gateway;
let admin: ReturnType<typeof api>;
const secrets: Partial<Record<Role, string>> = {};

beforeAll(async () => {
  db = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'sf-rest-'));
  gateway = await startGateway(
    loadGatewayConfig({
      DATABASE_URL: db.url,
      SIMFLEET_PORT: '0',
      SIMFLEET_DATA_DIR: dataDir,
      SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SIMFLEET_BODY_LIMIT_BYTES: '4096',
    }),
    { logger: pino({ level: 'silent' }) },
  );
  admin = api(gateway.url, TEST_ADMIN_TOKEN);
  secrets.admin = TEST_ADMIN_TOKEN;
  for (const role of ['agent', 'viewer', 'worker'] as const) {
    const res = await admin.call('createToken', { body: { name: `${role} token`, role, team: 'team-a' } });
    expect(res.status).toBe(201);
    secrets[role] = res.body.secret;
  }
});

afterAll(async () => {
  await gateway?.stop();
  await db?.drop();
});

const PARAMS: Record<string, string> = { hostId: 'no-such-host', deviceId: 'no-such-host.d1', tokenId: 'tok_0000000000' };
const operations = [...operationIndex.values()];
const protectedOps = operations.filter((o) => o.roles !== 'public');

describe('authorisation follows x-simfleet-roles in the contract', () => {
  it('exposes exactly the health, metrics and contract routes without a token', () => {
    expect(
      operations
        .filter((o) => o.roles === 'public')
        .map((o) => o.path)
        .sort(),
    ).toEqual(['/healthz', '/metrics', '/openapi.json', '/readyz']);
  });

  it.each(protectedOps.map((o) => [o.operationId, o.method, o.path] as const))('%s (%s %s) answers 401 UNAUTHORIZED without a token', async (id) => {
    const res = await admin.call(id as OperationId, { params: PARAMS, token: null, body: id === 'createToken' ? {} : undefined });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it.each(protectedOps.map((o) => [o.operationId] as const))('%s answers 401 INVALID_TOKEN with an unknown token', async (id) => {
    const res = await admin.call(id as OperationId, { params: PARAMS, token: 'sf_unknown_unknown_unknown_unknown' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_TOKEN');
  });

  it('answers a well-formed token that is merely unknown (short, or of other characters) INVALID_TOKEN, not a complaint about the header', async () => {
    for (const token of ['abc', 'not.one.of.ours', 'sf_short']) {
      const res = await admin.call('getWhoami', { token });
      expect(res.status).toBe(401);
      expect(res.body.error.code, token).toBe('INVALID_TOKEN');
    }
    const basic = await fetch(`${gateway.url}/v1/whoami`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(((await basic.json()) as { error: { message: string } }).error.message).toBe('the Authorization header is not "Bearer <token>"');
  });

  it('tells a WebSocket route given ?token= that it takes ?ticket= and where to get one', async () => {
    const refused = await new Promise<{ status: number | undefined; body: string }>((resolve) => {
      const ws = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/events?token=${TEST_ADMIN_TOKEN}`);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      ws.once('error', () => undefined);
    });
    expect(refused.status).toBe(401);
    const { error } = JSON.parse(refused.body) as { error: { code: string; message: string; hint: string } };
    expect(error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringContaining('?ticket=, not ?token='),
      hint: expect.stringContaining('POST /v1/tickets'),
    });
  });

  const matrix = protectedOps.flatMap((o) =>
    (['admin', 'agent', 'viewer', 'worker'] as const).map((role) => [o.operationId, role, (o.roles as Role[]).includes(role)] as const),
  );
  it.each(matrix)('%s with a %s token: allowed=%s', async (id, role, allowed) => {
    const res = await admin.call(id as OperationId, {
      params: PARAMS,
      token: secrets[role]!,
      ...(id === 'createToken' ? { body: { name: 'x', role: 'viewer', team: 'team-b' } } : {}),
    });
    if (allowed) {
      expect(res.status, res.text).not.toBe(403);
      expect(res.status).not.toBe(401);
    } else {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain(`${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role} token may not call ${id}`);
    }
  });
});

describe('tokens', () => {
  it('are shown once, stored only as a hash, and listed without secrets', async () => {
    const created = await admin.call('createToken', { body: { name: 'ci runner', role: 'agent', team: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^sf_[A-Za-z0-9_-]{43}$/);
    const stored = await db.query<Record<string, unknown>>('SELECT * FROM tokens WHERE id = $1', [created.body.token.id]);
    expect(JSON.stringify(stored)).not.toContain(created.body.secret);
    expect(stored[0]!.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    const listed = await admin.call('listTokens');
    expect(listed.text).not.toContain(created.body.secret);
    expect(listed.body.tokens.map((t: { id: string }) => t.id)).toContain(created.body.token.id);
  });

  it('identify their caller through whoami', async () => {
    const res = await api(gateway.url, secrets.viewer).call('getWhoami');
    expect(res.body).toMatchObject({ role: 'viewer', team: 'team-a', name: 'viewer token', revokedAt: null });
  });

  it('stop working once revoked, and revoking twice answers the same revocation', async () => {
    const created = await admin.call('createToken', { body: { name: 'short lived', role: 'agent', team: 'ci' } });
    const mine = api(gateway.url, created.body.secret);
    expect((await mine.call('listHosts')).status).toBe(200);
    const first = await admin.call('revokeToken', { params: { tokenId: created.body.token.id } });
    expect(first.status).toBe(200);
    expect(first.body.revokedAt).not.toBeNull();
    const second = await admin.call('revokeToken', { params: { tokenId: created.body.token.id } });
    expect(second.body.revokedAt).toBe(first.body.revokedAt);
    const refused = await mine.call('listHosts');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_TOKEN');
    expect((await admin.call('listTokens')).body.tokens.map((t: { id: string }) => t.id)).not.toContain(created.body.token.id);
    expect((await admin.call('listTokens', { query: { includeRevoked: 'true' } })).body.tokens.map((t: { id: string }) => t.id)).toContain(
      created.body.token.id,
    );
  });

  it('answers 404 for revoking a token that does not exist', async () => {
    const res = await admin.call('revokeToken', { params: { tokenId: 'tok_doesnotexist' } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('are audited with who minted and who revoked them', async () => {
    const rows = await db.query<{ action: string; actor: string | null }>(`SELECT action, actor FROM audit_log WHERE action LIKE 'token.%'`);
    expect(rows.some((r) => r.action === 'token.create' && r.actor !== null)).toBe(true);
    expect(rows.some((r) => r.action === 'token.revoke' && r.actor !== null)).toBe(true);
    expect(rows.some((r) => r.action === 'token.bootstrap')).toBe(true);
  });
});

describe('bad input gets a 4xx with a code, a hint and the field', () => {
  it('malformed JSON → 400 MALFORMED_JSON', async () => {
    const res = await admin.call('createToken', { rawBody: '{"name": "x", role', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
    expect(res.body.error.hint).toBeTruthy();
  });

  it('an empty JSON body → 400 MALFORMED_JSON', async () => {
    const res = await admin.call('createToken', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
  });

  it('a missing field → 400 VALIDATION_FAILED naming it', async () => {
    const res = await admin.call('createToken', { body: { name: 'x', team: 'a' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: 'body.role is required', details: { in: 'body', field: 'role' } });
  });

  it('an unknown role → 400 naming the field and the allowed values', async () => {
    const res = await admin.call('createToken', { body: { name: 'x', team: 'a', role: 'superuser' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('body.role must be one of "admin", "agent", "viewer", "worker"');
  });

  it('an unknown field → 400 naming it', async () => {
    const res = await admin.call('createToken', { body: { name: 'x', team: 'a', role: 'agent', rol: 'typo' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('rol');
  });

  it('an unknown field of an action or a /do step → 400 naming it, as session creation does', async () => {
    const at = { params: { sessionId: 'ses_0000000000000000000a' } };
    const action = await admin.call('runAction', { ...at, body: { action: 'tap', target: 'Inbox', colour: 'red' } });
    expect(action.status).toBe(400);
    expect(action.body.error).toMatchObject({ message: 'body.colour is not a known field', details: { field: 'colour' } });
    const step = await admin.call('runSteps', { ...at, body: { steps: [{ action: 'wait', for: 'settled', wiat: 1 }] } });
    expect(step.status).toBe(400);
    expect(step.body.error).toMatchObject({ message: 'body.steps.0.wiat is not a known field', details: { field: 'steps.0.wiat' } });
  });

  it('takes Content-Type: application/json with an empty body as no body where the route takes none, and says so where it needs one', async () => {
    const created = await admin.call('createToken', { body: { name: 'to revoke', role: 'viewer', team: 'a' } });
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const revoked = await fetch(`${gateway.url}/v1/tokens/${created.body.token.id}`, { method: 'DELETE', headers });
    expect(revoked.status, await revoked.clone().text()).toBe(200);
    const listed = await fetch(`${gateway.url}/v1/tokens`, { headers });
    expect(listed.status).toBe(200);
    const empty = await fetch(`${gateway.url}/v1/tokens`, { method: 'POST', headers, body: '' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'MALFORMED_JSON',
      message: 'the body is empty but Content-Type says JSON',
    });
  });

  it('a /do step written {"wait": {...}} is told a step names its kind in "action", with an example', async () => {
    const res = await admin.call('runSteps', {
      params: { sessionId: 'ses_0000000000000000000a' },
      body: { steps: [{ wait: { for: 'visible', target: 'Saved' } }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ message: 'body.steps.0.action is required', hint: expect.stringContaining('{"action": "wait", "for": "visible"') });
  });

  it('an unknown query parameter → 400 naming it', async () => {
    const res = await admin.call('listDevices', { query: { platfrom: 'web' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('query.platfrom is not a known field');
  });

  it('a query value outside its enum → 400', async () => {
    const res = await admin.call('listDevices', { query: { platform: 'symbian' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ in: 'query', field: 'platform' });
  });

  it('a malformed path id → 400, an unknown one → 404', async () => {
    const bad = await admin.call('getHost', { params: { hostId: 'NOT VALID!' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.in).toBe('path');
    const missing = await admin.call('getHost', { params: { hostId: 'never-seen' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('an oversized body → 413 BODY_TOO_LARGE', async () => {
    const res = await admin.call('createToken', { body: { name: 'x'.repeat(5000), role: 'agent', team: 'a' } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('BODY_TOO_LARGE');
  });

  it('a body that is not JSON → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await admin.call('createToken', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('an unknown route → 404 ROUTE_NOT_FOUND, before any auth', async () => {
    const res = await fetch(`${gateway.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('a plain GET on the worker WebSocket route → 426 UPGRADE_REQUIRED', async () => {
    const res = await admin.call('connectWorker', { token: secrets.worker! });
    expect(res.status).toBe(426);
    expect(res.body.error.code).toBe('UPGRADE_REQUIRED');
  });

  it('a malformed Authorization header → 401 with a hint', async () => {
    const res = await admin.call('listHosts', { token: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain('Bearer');
  });

  it('every error carries the request id, also as a response header', async () => {
    const res = await admin.call('getHost', { params: { hostId: 'never-seen' } });
    expect(res.body.error.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('health, readiness, metrics and the contract', () => {
  it('serves /healthz and a ready /readyz', async () => {
    expect((await admin.call('getHealth')).body).toMatchObject({ status: 'ok', gatewayId: gateway.config.gatewayId });
    const ready = await admin.call('getReadiness');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ database: { ok: true }, migrations: { ok: true }, accepting: { ok: true } });
  });

  it('serves the OpenAPI document it validates with', async () => {
    const res = await admin.call('getOpenApiDocument');
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/v1/workers/connect');
  });

  it('exposes Prometheus metrics with hosts, devices and an HTTP latency histogram', async () => {
    await admin.call('listHosts');
    const text = (await admin.call('getMetrics')).text;
    expect(text).toMatch(/^simfleet_hosts\{state="online"\} \d+$/m);
    expect(text).toMatch(/^simfleet_hosts\{state="offline"\} \d+$/m);
    expect(text).toMatch(/^simfleet_hosts_strained 0$/m);
    expect(text).toContain('# TYPE simfleet_devices gauge');
    expect(text).toMatch(/^simfleet_http_request_duration_seconds_bucket\{le="0.05",method="GET",route="\/v1\/hosts",status_code="200"\} [1-9]/m);
    expect(text).toMatch(/^simfleet_worker_connections \d+$/m);
  });
});

describe('readiness says which check failed, and comes back without a restart', () => {
  it('answers 503 naming a pending migration, then 200 once it is recorded again', async () => {
    const [newest] = await db.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM simfleet_migrations ORDER BY version DESC LIMIT 1',
    );
    await db.query('DELETE FROM simfleet_migrations WHERE version = $1', [newest!.version]);
    try {
      const res = await admin.call('getReadiness');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'not-ready', checks: { database: { ok: true }, migrations: { ok: false } } });
      expect(res.body.checks.migrations.detail).toContain(`pending: ${newest!.name}`);
    } finally {
      await db.query('INSERT INTO simfleet_migrations (version, name, checksum) VALUES ($1, $2, $3)', [newest!.version, newest!.name, newest!.checksum]);
    }
    expect((await admin.call('getReadiness')).status).toBe(200);
  });

  it('answers 503 saying the database refuses connections (without its name or address) while Postgres refuses them, and 200 once it takes them again', async () => {
    const other = new URL(db.url);
    other.pathname = '/postgres';
    const pgAdmin = new pg.Client({ connectionString: other.toString() });
    await pgAdmin.connect();
    try {
      await pgAdmin.query(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS false`);
      await pgAdmin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db.name]);
      const res = await admin.call('getReadiness');
      expect(res.status).toBe(503);
      expect(res.body.checks.database.ok).toBe(false);
      // public: the kind of failure, never the driver's words (they name the database and its address)
      expect(res.body.checks.database.detail).toBe('postgres database unreachable: the database is not accepting connections');
      expect(JSON.stringify(res.body)).not.toContain(db.name);
      expect(res.body.checks.migrations).toMatchObject({ ok: false, detail: 'unknown: the database is unreachable' });
    } finally {
      await pgAdmin.query(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS true`);
      await pgAdmin.end();
    }
    await waitFor('ready again', async () => ((await admin.call('getReadiness')).status === 200 ? true : undefined), 20_000);
  }, 40_000);
});

describe('the generated admin token', () => {
  it('is written once with mode 0600 on the first start of an empty farm and reused afterwards', async () => {
    const tdb = await createTestDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'sf-boot-'));
    const config = loadGatewayConfig({ DATABASE_URL: tdb.url, SIMFLEET_PORT: '0', SIMFLEET_DATA_DIR: dataDir });
    const first = await startGateway(config, { logger: pino({ level: 'silent' }) });
    try {
      expect(first.admin.source).toBe('generated');
      const file = join(dataDir, 'admin-token');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, 'utf8')).trim()).toBe(first.admin.secret);
      const res = await api(first.url, first.admin.secret).call('getWhoami');
      expect(res.body.role).toBe('admin');
    } finally {
      await first.stop();
    }
    const second = await startGateway(config, { logger: pino({ level: 'silent' }) });
    try {
      expect(second.admin.source).toBe('existing');
      expect(second.admin.secret).toBeUndefined();
      expect((await tdb.query<{ n: number }>(`SELECT count(*)::int AS n FROM tokens WHERE role = 'admin'`))[0]!.n).toBe(1);
    } finally {
      await second.stop();
      await tdb.drop();
    }
  });
});
