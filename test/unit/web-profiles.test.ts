// The web backend's set-up without a browser: which Chromium it picks (SIMFLEET_CHROMIUM, then a
// Playwright-installed one, then the system's, in order), and the device profiles a host offers.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../workers/devices/web/discovery.js';
import { PROFILES, parseWebDevices } from '../../workers/devices/web/profiles.js';

let dir: string;
/** A stand-in browser: a script that answers --version. */
async function browser(name: string, executable = true): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\necho "${name} 1.2.3"\n`);
  await chmod(path, executable ? 0o755 : 0o644);
  return path;
}
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-browsers-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('browser discovery', () => {
  it('takes SIMFLEET_CHROMIUM first, and says plainly when it is not an executable', async () => {
    const configured = await browser('configured');
    const system = await browser('system');
    expect(await findChromium(configured, { playwright: () => system, system: [[system, 'system']] })).toEqual({
      path: configured,
      source: 'SIMFLEET_CHROMIUM',
      version: 'configured 1.2.3',
    });
    const notExecutable = await browser('plain-file', false);
    expect(await findChromium(notExecutable, { playwright: () => system, system: [[system, 'system']] })).toEqual({
      missing: `SIMFLEET_CHROMIUM is ${notExecutable}, which is not an executable file`,
    });
  });

  it('then a Playwright-installed Chromium, then the system paths in their order, skipping what is not there', async () => {
    const playwright = await browser('playwright-chromium');
    const second = await browser('second');
    const third = await browser('third');
    const missing = join(dir, 'not-installed');
    expect(await findChromium(undefined, { playwright: () => playwright, system: [[second, 'second']] })).toMatchObject({
      path: playwright,
      source: 'Playwright-installed Chromium',
    });
    expect(
      await findChromium(undefined, {
        playwright: () => missing,
        system: [
          [missing, 'first'],
          [second, 'second'],
          [third, 'third'],
        ],
      }),
    ).toMatchObject({ path: second, source: 'second', version: 'second 1.2.3' });
    expect(
      await findChromium(undefined, {
        playwright: () => undefined,
        system: [
          [third, 'third'],
          [second, 'second'],
        ],
      }),
    ).toMatchObject({ path: third });
  });

  it('names every place it looked when there is no browser at all', async () => {
    const missing = join(dir, 'nowhere');
    const found = await findChromium(undefined, {
      playwright: () => undefined,
      system: [
        [missing, 'x'],
        ['/nonexistent/chrome', 'y'],
      ],
    });
    expect(found).toEqual({ missing: `no Chrome or Chromium found (looked for SIMFLEET_CHROMIUM, ${missing}, /nonexistent/chrome)` });
  });
});

describe('web device profiles', () => {
  it('offers a phone of each kind and a tablet, each with its viewport in points, scale and mobile user agent', () => {
    expect(PROFILES['iphone-15']).toMatchObject({ viewport: { width: 393, height: 852 }, deviceScaleFactor: 3, labels: ['phone', 'ios-like'] });
    expect(PROFILES['iphone-15']!.userAgent).toMatch(/iPhone.*Mobile/);
    expect(PROFILES['pixel-8']).toMatchObject({ viewport: { width: 412, height: 915 }, deviceScaleFactor: 2.625, labels: ['phone', 'android-like'] });
    expect(PROFILES['pixel-8']!.userAgent).toMatch(/Android.*Mobile/);
    expect(PROFILES['ipad-air']).toMatchObject({ viewport: { width: 820, height: 1180 }, deviceScaleFactor: 2, labels: ['tablet', 'ios-like'] });
    expect(PROFILES['ipad-air']!.userAgent).toMatch(/iPad/);
  });

  it("reads a host's slots: name:count, several kinds, none", () => {
    expect(parseWebDevices('iphone-15:2,pixel-8').map((p) => p.name)).toEqual(['iphone-15', 'iphone-15', 'pixel-8']);
    expect(parseWebDevices(' ipad-air ').map((p) => p.name)).toEqual(['ipad-air']);
    expect(parseWebDevices('none')).toEqual([]);
    expect(parseWebDevices('')).toEqual([]);
  });

  it('refuses an unknown profile or a bad count, naming what is known', () => {
    expect(() => parseWebDevices('galaxy-s24')).toThrow('unknown web device profile "galaxy-s24"; known: iphone-15, pixel-8, ipad-air');
    expect(() => parseWebDevices('iphone-15:0')).toThrow('bad count in "iphone-15:0"');
    expect(() => parseWebDevices('iphone-15:65')).toThrow('bad count');
    expect(() => parseWebDevices('pixel-8:two')).toThrow('bad count');
  });
});
