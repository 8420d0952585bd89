// A web device that would not come up is booted again until it does (boot-lane.ts), on real
// Chromium: its app's server is not listening yet, so the first loads are refused; the device says
// broken with the attempt and the cause meanwhile, and comes up once the server does. Before the
// lane, a device whose first load failed stayed broken until the worker restarted (a starved host
// lost all twenty of its devices that way).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BootLane } from '../../workers/devices/web/boot-lane.js';
import { chromiumArgs } from '../../workers/devices/web/chromium-args.js';
import { WebDevice } from '../../workers/devices/web/device.js';
import { PageLoads } from '../../workers/devices/web/page-loads.js';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { startSampleServer, type SampleServer } from '../../workers/devices/web/sample-server.js';
import { waitFor } from '../helpers/wait.js';

let browser: Browser;
let sample: SampleServer;
const servers: Server[] = [];

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs({ noSandbox: process.getuid?.() === 0 }) });
  sample = await startSampleServer();
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await sample?.close();
  await browser?.close();
});

/** A port nothing listens on yet, and a way to start serving the sample app there. */
async function laterServer(): Promise<{ origin: string; listen: () => Promise<void> }> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return {
    origin: `http://127.0.0.1:${port}`,
    listen: async () => {
      const proxy = createServer(async (req, res) => {
        const upstream = await fetch(`${sample.origin}${req.url}`);
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain', 'cache-control': 'no-store' });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      });
      servers.push(proxy);
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
    },
  };
}

it('boots a device again until its app loads, broken with the cause meanwhile, then ready with a live page', async () => {
  const later = await laterServer();
  const healths: string[] = [];
  const device: WebDevice = new WebDevice(
    'web-1',
    PROFILES['iphone-15']!,
    () => browser,
    { origin: later.origin, url: `${later.origin}/sample/`, close: async () => undefined },
    pino({ level: 'silent' }),
    () => healths.push(device.health.state),
    new PageLoads(),
  );
  const lane = new BootLane(pino({ level: 'silent' }), { retryMinMs: 200, retryMaxMs: 400 });
  try {
    expect(await lane.boot(device)).toBe(false);
    expect(device.health.state).toBe('broken');
    const reason = (device.health as { reason: string }).reason;
    expect(reason).toMatch(/^would not start \(attempt 1, next in \d+ s\): could not load http:\/\/127\.0\.0\.1:\d+\/sample\/: .*ERR_CONNECTION_REFUSED/);
    // Retries go on while the app cannot be reached.
    await waitFor('a second attempt', () => (/attempt [2-9]/.test((device.health as { reason?: string }).reason ?? '') ? true : undefined), 10_000);
    await later.listen();
    await waitFor('the device ready', () => (device.health.state === 'ready' ? true : undefined), 20_000);
    expect(healths.at(-1)).toBe('ready');
    // A working page: the sample app's tree is there.
    const tree = await device.tree();
    expect(tree.nodes.length).toBeGreaterThan(5);
    expect(tree.nodes.some((n) => /Sign in|Inbox|Welcome/i.test(n.label ?? ''))).toBe(true);
  } finally {
    lane.close();
    await device.close();
  }
}, 60_000);

it('says a load that ran out of time did not finish loading (not that the app is unreachable), and boots again', async () => {
  // A server that takes the request and answers only when let go: a page load stuck as on a starved host.
  let answering = false;
  const held: (() => void)[] = [];
  const slow = createServer(async (req, res) => {
    if (!answering) await new Promise<void>((r) => held.push(r));
    const upstream = await fetch(`${sample.origin}${req.url}`);
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain', 'cache-control': 'no-store' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  servers.push(slow);
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  const device: WebDevice = new WebDevice(
    'web-2',
    PROFILES['iphone-15']!,
    () => browser,
    { origin, url: `${origin}/sample/`, close: async () => undefined },
    pino({ level: 'silent' }),
    () => undefined,
    new PageLoads(),
  );
  device.navigationTimeoutMs = 3000; // 30 s in service: the message is the same, the wait a tenth
  const lane = new BootLane(pino({ level: 'silent' }), { retryMinMs: 200, retryMaxMs: 400 });
  try {
    expect(await lane.boot(device)).toBe(false); // the navigation timeout
    const reason = (device.health as { reason: string }).reason;
    expect(reason).toMatch(/^would not start \(attempt 1, next in \d+ s\): http:\/\/127\.0\.0\.1:\d+\/sample\/ did not finish loading within 3 s$/);
    answering = true;
    device.navigationTimeoutMs = 30_000; // the boots to come are real loads on a machine that may be busy
    for (const r of held.splice(0)) r();
    await waitFor('the device ready', () => (device.health.state === 'ready' ? true : undefined), 40_000);
    expect((await device.tree()).nodes.length).toBeGreaterThan(5);
  } finally {
    lane.close();
    await device.close();
  }
}, 120_000);

it('a host of six devices loads their pages four at a time, and all come up', async () => {
  const provider = new WebProvider({
    profiles: Array.from({ length: 6 }, () => PROFILES['iphone-15']!),
    chromium: undefined,
    logger: pino({ level: 'silent' }),
  });
  try {
    await provider.start();
    const devices = Array.from({ length: 6 }, (_, i) => provider.device(`web-${i + 1}`) as WebDevice);
    await waitFor('six devices ready', () => (devices.every((d) => d.health.state === 'ready') ? true : undefined), 60_000);
    expect(provider.loads.peak).toBe(4);
    expect(provider.loads.waiting).toBe(0);
  } finally {
    await provider.close();
  }
}, 120_000);
