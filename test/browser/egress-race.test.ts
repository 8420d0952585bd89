// The egress guard on real Chromium when a page goes away under a request it is routing: a device
// reset closes the context while the guard is still checking a redirect for the page. The worker
// must live on (a full test run once saw a route answered after its context closed stop a worker;
// that exact race, a fetched response disposed before it was handed on, is too narrow to hit on
// purpose here and is played with a stand-in route in unit/egress-failure).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../workers/devices/origin-policy.js';
import { guardEgress } from '../../workers/devices/web/egress.js';

let browser: Browser;
let slow: Server;
let slowUrl: string;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  slow = createServer((req, res) => {
    if (req.url === '/') return res.end('<!doctype html><p>page</p>');
    if (req.url === '/redirect') return res.writeHead(302, { location: `http://held.test:${(slow.address() as AddressInfo).port}/` }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  slow?.closeAllConnections();
  await new Promise((r) => slow?.close(r));
});

describe('the egress guard', () => {
  it('lets a page go away under a request it is routing, without an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      const logger = pino({ level: 'silent' });
      let looked = 0;
      let resolving: () => void = () => undefined;
      let release: () => void = () => undefined;
      // The redirect's target is looked up by name before the browser is sent there; the lookup
      // is held until the context has closed, so the guard answers a route whose page has gone.
      // (A public address, so the lookup is needed and allows it; the browser never gets there.)
      const policy = new OriginPolicy({ allowedOrigins: ['*'], allowPrivate: false }, [slowUrl], async () => {
        looked++;
        resolving();
        await new Promise<void>((r) => (release = r));
        return ['93.184.216.34'];
      });
      for (let round = 0; round < 3; round++) {
        const context = await browser.newContext();
        await guardEgress(context, policy, [], logger);
        const page = await context.newPage();
        const looking = new Promise<void>((r) => (resolving = r));
        void page.goto(`${slowUrl}/redirect`).catch(() => undefined);
        await looking;
        await context.close();
        release();
        await new Promise((r) => setTimeout(r, 500)); // real time: Chromium's own request handling
        policy.use({ allowedOrigins: ['*'], allowPrivate: false }); // forget the verdict: each round looks up again
      }
      expect(unhandled).toEqual([]);
      expect(looked).toBe(3);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('still answers a request fetched for a page that stays: the page loads', async () => {
    const context = await browser.newContext();
    await guardEgress(context, new OriginPolicy({ allowedOrigins: ['*'], allowPrivate: true }, []), [], pino({ level: 'silent' }));
    const page = await context.newPage();
    await page.goto(`${slowUrl}/`);
    expect(await page.textContent('p')).toBe('page');
    await context.close();
  });
});
