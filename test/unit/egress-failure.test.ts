// The egress guard when answering a route fails: a full test run saw route.fulfill throw "Fetch
// response has been disposed" (the device's context closed between the guard's fetch and its
// answer), and as an unhandled rejection it stopped the worker and every device on it. Playwright's
// context is a stand-in here because that race is too narrow to hit on purpose in real Chromium
// (browser/egress-race covers a context closed mid-route there).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../workers/devices/origin-policy.js';
import { guardEgress } from '../../workers/devices/web/egress.js';

async function guarded() {
  const handlers: { route?: (route: unknown) => Promise<void>; ws?: (ws: unknown) => Promise<void> } = {};
  const context = {
    route: async (_: string, h: (route: unknown) => Promise<void>) => void (handlers.route = h),
    routeWebSocket: async (_: RegExp, h: (ws: unknown) => Promise<void>) => void (handlers.ws = h),
  };
  const logged: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line).msg) });
  await guardEgress(context as never, new OriginPolicy({ allowedOrigins: ['*'], allowPrivate: false }, []), [], logger);
  return { handlers, logged };
}

describe('the egress guard, when answering fails', () => {
  it('does not reject: the route is refused and the failure logged', async () => {
    const { handlers, logged } = await guarded();
    const aborted: string[] = [];
    const route = {
      request: () => ({ url: () => 'http://93.184.216.34/app.js', resourceType: () => 'script' }),
      fetch: async () => ({ status: () => 200, headers: () => ({}) }),
      fulfill: async () => {
        throw new Error('route.fulfill: Fetch response has been disposed');
      },
      abort: async (why: string) => void aborted.push(why),
    };
    await expect(handlers.route!(route)).resolves.toBeUndefined();
    expect(aborted).toEqual(['failed']);
    expect(logged).toContain('a request could not be answered (its page or context may have gone)');
  });

  it('does not reject when the refusal fails too (the page is gone)', async () => {
    const { handlers } = await guarded();
    const route = {
      request: () => ({ url: () => 'http://93.184.216.34/app.js', resourceType: () => 'script' }),
      fetch: async () => ({ status: () => 200, headers: () => ({}) }),
      fulfill: async () => {
        throw new Error('route.fulfill: Fetch response has been disposed');
      },
      abort: async () => {
        throw new Error('route.abort: Target page, context or browser has been closed');
      },
    };
    await expect(handlers.route!(route)).resolves.toBeUndefined();
  });

  it('closes a socket whose routing failed, and does not reject', async () => {
    const { handlers } = await guarded();
    const closed: number[] = [];
    const ws = {
      url: () => 'ws://93.184.216.34/live',
      connectToServer: () => {
        throw new Error('webSocketRoute.connectToServer: Target page, context or browser has been closed');
      },
      close: async ({ code }: { code: number }) => void closed.push(code),
    };
    await expect(handlers.ws!(ws)).resolves.toBeUndefined();
    expect(closed).toEqual([1011]);
  });
});
