// The gateway logs one line per request, at the level its outcome deserves (issue 40): 593 lines for
// 220 requests pushed the start banner off the screen, and a page whose host name does not resolve
// was logged as a gateway error. In-process farm (real Postgres, real HTTP) with the gateway's log
// captured; the fake device fails to open a .invalid host as a real one does.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { levelOf } from '../../server/http/request-log.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { TEST_ADMIN_TOKEN } from '../helpers/processes.js';
import { settledSession } from '../helpers/sessions.js';

let farm: Farm;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  farm = await startFarm({}, { gatewayLogger: logger });
  await farm.addWorker(1);
});
afterAll(() => farm?.stop());

const PINO = { info: 30, warn: 40, error: 50 } as const;

async function request(path: string, init: RequestInit & { token?: string } = {}) {
  const res = await fetch(`${farm.gateway.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${init.token ?? TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });
  await res.arrayBuffer();
  return { status: res.status, id: res.headers.get('x-request-id')! };
}

describe("the gateway's request log", () => {
  it('writes one line per request, at info for answers and refusals, including a page that would not load', async () => {
    const agent = await farm.token('agent', 'logs');
    const session = { id: await settledSession(agent) };
    const answered = [
      await request('/v1/whoami'),
      await request('/v1/no-such-route'),
      await request('/v1/whoami', { token: 'sf_unknown_unknown_unknown_unknown' }),
      await request(`/v1/sessions/${session.id}/actions`, { method: 'POST', body: JSON.stringify({ action: 'tapp' }), token: agent.token! }),
      await request(`/v1/sessions/${session.id}/actions`, {
        method: 'POST',
        body: JSON.stringify({ action: 'open', url: 'https://no-such-host.invalid/' }),
        token: agent.token!,
      }),
    ];
    expect(answered.map((a) => a.status)).toEqual([200, 404, 401, 400, 502]);
    await new Promise((r) => setTimeout(r, 50)); // onResponse runs after the answer is written
    for (const { id, status } of answered) {
      const mine = lines.filter((l) => l.reqId === id);
      expect(
        mine.map((l) => l.msg),
        `request ${status}`,
      ).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: PINO.info, res: { statusCode: status } });
    }
    expect(lines.find((l) => l.reqId === answered[4]!.id)).toMatchObject({ code: 'APP_UNREACHABLE', reason: expect.stringContaining('cannot resolve') });
  });

  it('keeps warn for a farm that cannot serve now and error for what is wrong with the gateway', () => {
    expect(levelOf(503, 'HOST_OVERLOADED')).toBe('warn');
    expect(levelOf(503, 'SHUTTING_DOWN')).toBe('warn');
    expect(levelOf(500, 'INTERNAL')).toBe('error');
    expect(levelOf(503, undefined)).toBe('info'); // /readyz answering not-ready is an answer
  });
});
