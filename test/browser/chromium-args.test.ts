// The web device's Chromium command line, read back off the running browser process: Chromium
// keeps only the last --disable-features, so the one simfleet passes must carry Playwright's names
// as well as its own, and the mirror of Playwright's list must match the Playwright installed.
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { argvOf, processTable } from '../helpers/proc.js';
import { chromiumArgs, PLAYWRIGHT_DISABLED_FEATURES, SIMFLEET_DISABLED_FEATURES } from '../../workers/devices/web/chromium-args.js';

const CHROMIUM = '/usr/bin/chromium';

/** The argv of the browser process Playwright started from this process. */
function browserArgv(): string[] {
  for (const p of processTable().filter((e) => e.ppid === process.pid)) {
    const argv = argvOf(p.pid);
    if (argv.includes('--remote-debugging-pipe')) return argv;
  }
  throw new Error('no browser process of this test found');
}

/** What Chromium applies: the value of the last --disable-features. */
function effectiveDisabled(argv: string[]): string[] {
  const last = argv.filter((a) => a.startsWith('--disable-features=')).at(-1);
  return last ? last.slice('--disable-features='.length).split(',') : [];
}

async function launchedArgv(args: string[]): Promise<string[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  try {
    return browserArgv();
  } finally {
    await browser.close();
  }
}

describe('chromium command line', () => {
  it("mirrors the installed Playwright's own --disable-features list exactly", async () => {
    const playwrights = effectiveDisabled(await launchedArgv(['--no-sandbox']));
    expect(playwrights.length).toBeGreaterThan(0);
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...playwrights].sort());
  });

  it("keeps every feature Playwright turns off and turns off simfleet's own", async () => {
    const applied = effectiveDisabled(await launchedArgv(chromiumArgs({ noSandbox: true })));
    for (const name of [...PLAYWRIGHT_DISABLED_FEATURES, ...SIMFLEET_DISABLED_FEATURES]) expect(applied).toContain(name);
    expect(applied).toContain('ResamplingScrollEvents');
  });
});
