// The soak's measuring must not grow what it measures. Every relaunch cycle it asks each page to
// collect its garbage and reads what the page holds (test/soak/collect.ts). Done through
// Playwright's connectOverCDP, each connection left about 0.16 MB of JS heap in every page that
// outlived the page's navigations, so a 125-minute soak's renderers "grew" by the soak's own hand.
// Here one real web device is relaunched and measured again and again: its heap must stay level.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { collectGarbage, debuggableChromium, type PagesAfterCollection } from '../soak/collect.js';
import { argvOf, descendantsOf } from '../helpers/proc.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;
beforeAll(async () => {
  const chromium = debuggableChromium(await mkdtemp(join(tmpdir(), 'sf-collect-')));
  if (!chromium) throw new Error("no Chromium on this host (/usr/bin/chromium): install Debian's chromium package");
  ({ provider, device } = await webDevice({ chromium }));
}, 60_000);
afterAll(() => provider?.close());

/** The browser process(es) this test started: Chromium processes with no --type. */
const browsers = () =>
  descendantsOf(process.pid)
    .filter((p) => /chrom/.test(argvOf(p.pid)[0] ?? '') && !argvOf(p.pid).some((a) => a.startsWith('--type=')))
    .map((p) => p.pid);

it('leaves nothing behind in the pages it measures, round after round of relaunches', async () => {
  const rounds: PagesAfterCollection[] = [];
  for (let i = 0; i < 14; i++) {
    await device.launch();
    const r = await collectGarbage(browsers());
    if ('error' in r) throw new Error(r.error);
    rounds.push(r);
  }
  for (const r of rounds) {
    expect(r.pages).toBe(1);
    expect(r.documents).toBe(1); // the relaunched app's document alone
    expect(r.domNodes).toBeGreaterThan(0);
    expect(r.v8UsedMB).toBeGreaterThan(0);
  }
  // After a few rounds to warm up, the page's JS heap is level: Playwright's connections added
  // 0.16 MB a round, 1.6 MB over these ten.
  const warm = rounds.slice(4).map((r) => r.v8UsedMB);
  expect(Math.max(...warm) - warm[0]!).toBeLessThan(0.5);
}, 120_000);
