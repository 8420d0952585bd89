/// <reference lib="dom" />
// The dashboard in a real browser against a real gateway, worker and Chromium device: logging in,
// the farm page (host, device and session from the farm stream, a live thumbnail), the session
// page (live screen, outline, event feed) following a tap made through the API, and a refused
// token shown on the login page. Playwright's own waits, never fixed sleeps.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Worker } from '../../workers/index.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { webFarm } from '../helpers/web-device.js';

// Two loaded cores run these suites: generous, but a broken page still fails in seconds, not minutes.
const WAIT = { timeout: 15_000 };

let farm: Farm;
let provider: WebProvider;
let worker: Worker;
let agent: Awaited<ReturnType<Farm['token']>>;
let browser: Browser;

beforeAll(async () => {
  ({ farm, provider, worker } = await webFarm());
  agent = await farm.token('agent', 'dash');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await farm?.stop();
  await provider?.close();
});

async function open(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  await page.goto(new URL('/', farm.gateway.url).href);
  return { page, problems };
}

async function logIn(page: Page, secret: string): Promise<void> {
  await page.locator('#token').fill(secret);
  await page.locator('.login button[type=submit]').click();
}

const number = (page: Page, selector: string, attr: string) => page.locator(selector).first().getAttribute(attr).then(Number);

describe('the dashboard', () => {
  it('is served at / without a token, with its modules and content types', async () => {
    const res = await fetch(new URL('/', farm.gateway.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const js = await fetch(new URL('/dashboard/app.js', farm.gateway.url));
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    for (const bad of ['/dashboard/..%2Fhttp%2Fapp.ts', '/dashboard/README.md', '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json']) {
      expect((await fetch(new URL(bad, farm.gateway.url))).status, bad).toBe(404);
    }
  });

  it('shows the farm, then a session live: a tap through the API moves the screen and lands in the feed', async () => {
    const id = await settledSession(agent);
    const { page, problems } = await open();
    try {
      await logIn(page, agent.token!);
      await page.locator('#who', { hasText: 'agent · team dash' }).waitFor(WAIT);
      // Never in localStorage, never in the URL.
      expect(await page.evaluate(() => [localStorage.length, location.href.includes('sf_')])).toEqual([0, false]);

      const host = page.locator(`[data-host-id="${worker.identity.id}"]`);
      await host.locator('[data-badge="online"]').first().waitFor(WAIT);
      await host.locator(`[data-device-id="${worker.identity.id}.web-1"][data-state="leased"]`).waitFor(WAIT);
      // A host becoming strained reaches the page through the farm stream (the trigger's event) and
      // shows until placement stops keeping sessions off it.
      expect(await host.locator('[data-badge="strained"]').count()).toBe(0);
      await farm.db.query(`UPDATE hosts SET strained_at = now() WHERE id = $1`, [worker.identity.id]);
      await host.locator('[data-badge="strained"]').waitFor(WAIT);
      expect(await host.locator('[data-badge="strained"]').getAttribute('title')).toMatch(/new sessions go to other hosts until \d\d:\d\d:\d\d/);
      const card = page.locator(`[data-session-id="${id}"][data-state="ready"]`);
      await card.waitFor(WAIT);
      await page.waitForFunction((sid) => Number(document.querySelector(`[data-session-id="${sid}"] img.thumb`)?.getAttribute('data-frames')) > 0, id, WAIT);
      expect(await page.locator('[data-queue]').textContent()).toMatch(/queue: 0 waiting/);

      await card.locator(`a[href="#/sessions/${id}"]`).last().click();
      await page.locator('[data-title]', { hasText: id }).waitFor(WAIT);
      await page.waitForFunction(() => Number(document.querySelector('[data-screen]')?.getAttribute('data-frames')) > 0, null, WAIT);
      await page.locator('[data-feed] li[data-type="session"]', { hasText: 'session ready' }).waitFor(WAIT);
      await page.locator('[data-outline]', { hasText: 'Inbox' }).waitFor(WAIT);
      // The inbox's clock ticks every second: its changes and settles fold into one line, updated in place.
      await page.waitForFunction(() => Number(document.querySelector('[data-feed] li[data-fold]')?.getAttribute('data-fold')) >= 3, null, WAIT);
      const folded = page.locator('[data-feed] li[data-fold]').first();
      expect(await folded.textContent()).toMatch(/\(×\d+ since \d\d:\d\d:\d\d: changes and settles folded\)$/);
      const types = await page
        .locator('[data-feed] li')
        .evaluateAll((els) => els.map((e) => (e.hasAttribute('data-fold') ? 'folded' : e.getAttribute('data-type'))));
      expect(
        types.some((t, i) => t === 'folded' && types[i + 1] === 'folded'),
        types.join(' '),
      ).toBe(false);
      const seq = await number(page, '[data-screen]', 'data-seq');

      const tap = await agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target: 'Settings', role: 'tab' } });
      expect(tap.status, tap.text.slice(0, 300)).toBe(200);

      await page.waitForFunction((before) => Number(document.querySelector('[data-screen]')?.getAttribute('data-seq')) > before, seq, WAIT);
      const action = page.locator('[data-feed] li[data-type="action"]').first();
      await action.waitFor(WAIT);
      expect(await action.textContent()).toMatch(/action tap "Settings"/);
      // The outline follows the screen; the graph has remembered where the tab led.
      await page.locator('[data-outline-status]', { hasText: 'Settings' }).waitFor(WAIT);
      await page.locator('[data-graph] li[data-edge]', { hasText: /tab-settings → Settings/ }).waitFor(WAIT);
      await page.locator('[data-graph] li[data-node].current > strong', { hasText: 'Settings' }).waitFor(WAIT);
      // Newest on top.
      expect(await page.locator('[data-feed] li').last().getAttribute('data-type')).toBe('session');

      // A dropped stream says so, and comes back where it left off: nothing is shown twice.
      const sockets: string[] = [];
      page.on('websocket', (ws) => sockets.push(ws.url()));
      // The reconnecting state may last only half a second: every text it shows is recorded.
      await page.evaluate(() => {
        const shown: string[] = ((window as unknown as { shown: string[] }).shown = []);
        for (const el of document.querySelectorAll('[data-feed-status], .session .error')) {
          new MutationObserver(() => shown.push(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
        }
      });
      for (const client of farm.gateway.http.websocketServer.clients) client.close(1011, 'INTERNAL');
      await page.waitForFunction(
        () => {
          const shown = (window as unknown as { shown: string[] }).shown;
          return shown.some((t) => t.startsWith('reconnecting')) && shown.some((t) => /event stream dropped; reconnecting/.test(t));
        },
        null,
        WAIT,
      );
      await page.locator('[data-feed-status]', { hasText: 'live' }).waitFor(WAIT);
      await page.locator('.session .error').waitFor({ state: 'hidden', ...WAIT });
      expect(sockets.find((u) => u.includes(`/v1/sessions/${id}/events?`))).toMatch(/[?&]since=\d+/);
      expect(sockets.every((u) => /[?&]ticket=tk_/.test(u) && !u.includes('sf_'))).toBe(true);
      expect(await page.locator('[data-feed] li[data-type="session"]').count()).toBe(1);

      await agent.call('releaseSession', { params: { sessionId: id } });
      await page.locator('[data-feed] li[data-type="session"]', { hasText: 'session ended' }).waitFor(WAIT);
      await page.locator('[data-feed-status]', { hasText: 'ended' }).waitFor(WAIT);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('says clearly when a token is refused, at login and later', async () => {
    const { page, problems } = await open();
    try {
      // A newcomer is told where the token is.
      expect(await page.locator('.login [data-where]').textContent()).toMatch(
        /prints the admin token once[\s\S]*\.simfleet\/admin-token[\s\S]*SIMFLEET_ADMIN_TOKEN/,
      );
      await logIn(page, 'sf_notatokenatall0000000000');
      const error = page.locator('.login .error');
      await error.waitFor({ state: 'visible', ...WAIT });
      expect(await error.textContent()).toMatch(/^INVALID_TOKEN: the token is unknown or revoked/);
      expect(await page.evaluate(() => [sessionStorage.length, localStorage.length])).toEqual([0, 0]);

      // A stored token the gateway no longer accepts: back to the login page, saying why.
      await page.evaluate(() => sessionStorage.setItem('simfleet.token', 'sf_revoked00000000000000000'));
      await page.goto(new URL('/#/', farm.gateway.url).href);
      await page.locator('.login .error', { hasText: 'Logged out: INVALID_TOKEN' }).waitFor(WAIT);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
