/// <reference lib="dom" />
// Web sessions end to end: the gateway leases a real Chromium device through the session API.
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { startFarm, type Farm } from '../helpers/farm.js';
import { waitFor } from '../helpers/wait.js';

let farm: Farm;
let provider: WebProvider;
let app: Server;
let appOrigin: string;
let agent: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  app = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><meta name="viewport" content="width=device-width"></head><body><h1 id="t">Team app</h1></body></html>');
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  appOrigin = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
  farm = await startFarm({ SIMFLEET_WEB_ALLOWED_ORIGINS: `*,${appOrigin},http://127.0.0.1:9` });
  provider = new WebProvider({ profiles: [PROFILES['pixel-8']!], chromium: undefined, logger: pino({ level: 'silent' }) });
  const worker = await farm.addWorkerWith([provider]);
  await waitFor(
    'web device available',
    async () => {
      const d = (await farm.admin.call('listDevices', { query: { hostId: worker.identity.id } })).body.devices;
      return d[0]?.state === 'available' || undefined;
    },
    20_000,
  );
  agent = await farm.token('agent', 'web');
});
afterAll(async () => {
  await farm?.stop();
  await new Promise((r) => app?.close(r));
});

const device = () => provider.device('web-1')!;
async function ready(body: Record<string, unknown>) {
  let s = (await agent.call('createSession', { body: { platform: 'web', ...body } })).body;
  while (s.state === 'queued' || s.state === 'preparing')
    s = (await agent.call('getSession', { params: { sessionId: s.id }, query: { wait: '20', ifState: s.state } })).body;
  return s;
}
async function available() {
  await waitFor('device available', async () => ((await farm.admin.call('listDevices')).body.devices[0].state === 'available' ? true : undefined), 20_000);
}

describe('a web session', () => {
  it('without app.url gets a device showing the sample app, in its profile', async () => {
    const s = await ready({});
    expect(s).toMatchObject({ state: 'ready', device: { backend: 'web', model: 'Pixel 8 (web)' } });
    expect(device().currentPageForTests.url().startsWith(provider.sampleUrl!)).toBe(true);
    expect(await device().currentPageForTests.evaluate(() => [innerWidth, devicePixelRatio])).toEqual([412, 2.625]);
    await device().currentPageForTests.evaluate(() => (document.cookie = 'left=behind; max-age=600'));
    await agent.call('releaseSession', { params: { sessionId: s.id } });
    await available();
  });

  it('with app.url gets a device on that URL, with nothing left by the session before', async () => {
    const s = await ready({ app: { url: `${appOrigin}/` } });
    expect(s.state).toBe('ready');
    const page = device().currentPageForTests;
    expect(page.url()).toBe(`${appOrigin}/`);
    expect(await page.textContent('#t')).toBe('Team app');
    expect(await page.context().cookies()).toEqual([]);
    await agent.call('releaseSession', { params: { sessionId: s.id } });
    await available();
  });

  it('refuses a metadata address at create with 403 ORIGIN_NOT_ALLOWED', async () => {
    const res = await agent.call('createSession', { body: { platform: 'web', app: { url: 'http://169.254.169.254/latest/meta-data/' } } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED', details: { field: 'app.url' } });
  });

  it('fails, without quarantining the device, when its app cannot be loaded', async () => {
    const s = await ready({ app: { url: 'http://127.0.0.1:9/' } });
    expect(s).toMatchObject({ state: 'ended', endReason: 'failed' });
    expect(s.endDetail).toContain('APP_UNREACHABLE');
    await available();
    expect((await farm.db.query(`SELECT 1 FROM audit_log WHERE action = 'device.quarantine'`)).length).toBe(0);
  });

  it('ends device-lost when the page crashes mid-session, and the device comes back for the next one', async () => {
    const s = await ready({});
    const cdp = await device().currentPageForTests.context().newCDPSession(device().currentPageForTests);
    await cdp.send('Page.crash').catch(() => undefined);
    let now = s;
    while (now.state === 'ready') now = (await agent.call('getSession', { params: { sessionId: s.id }, query: { wait: '20', ifState: 'ready' } })).body;
    expect(now).toMatchObject({ state: 'ended', endReason: 'device-lost', endDetail: 'the browser page crashed' });
    await available();
    const next = await ready({});
    expect(next.state).toBe('ready');
    await agent.call('releaseSession', { params: { sessionId: next.id } });
  });
});
