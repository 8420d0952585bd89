// The web device's Chromium command line, read back off the running browser process: Chromium
// keeps only the last --disable-features, so the one simfleet passes must carry Playwright's names
// as well as its own, and the mirror of Playwright's list must match the Playwright installed.
import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumArgs, PLAYWRIGHT_DISABLED_FEATURES, SIMFLEET_DISABLED_FEATURES } from '../../workers/devices/web/chromium-args.js';

const CHROMIUM = '/usr/bin/chromium';

/** The argv of the browser process Playwright started from this process. */
function browserArgv(): string[] {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    let argv: string[];
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid && argv.includes('--remote-debugging-pipe')) return argv;
  }
  throw new Error('no browser process of this test found');
}

/** What Chromium applies: the value of the last --disable-features. */
function effectiveDisabled(argv: string[]): string[] {
  const last = argv.filter((a) => a.startsWith('--disable-features=')).at(-1);
  return last ? last.slice('--disable-features='.length).split(',') : [];
}

async function argvOf(args: string[]): Promise<string[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  try {
    return browserArgv();
  } finally {
    await browser.close();
  }
}

describe('chromium command line', () => {
  it("mirrors the installed Playwright's own --disable-features list exactly", async () => {
    const playwrights = effectiveDisabled(await argvOf(['--no-sandbox']));
    expect(playwrights.length).toBeGreaterThan(0);
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...playwrights].sort());
  });

  it("keeps every feature Playwright turns off and turns off simfleet's own", async () => {
    const applied = effectiveDisabled(await argvOf(chromiumArgs({ noSandbox: true })));
    for (const name of [...PLAYWRIGHT_DISABLED_FEATURES, ...SIMFLEET_DISABLED_FEATURES]) expect(applied).toContain(name);
    expect(applied).toContain('ResamplingScrollEvents');
  });
});
