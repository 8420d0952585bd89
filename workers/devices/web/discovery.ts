// Which Chromium to drive, in this order: SIMFLEET_CHROMIUM, a Playwright-installed Chromium,
// Debian's /usr/bin/chromium or chromium-browser, Google Chrome. Nothing is ever downloaded.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const run = promisify(execFile);

export interface BrowserFound {
  path: string;
  source: string;
  version: string;
}

const SYSTEM_PATHS: [string, string][] = [
  ['/usr/bin/chromium', 'Debian chromium'],
  ['/usr/bin/chromium-browser', 'chromium-browser'],
  ['/usr/bin/google-chrome', 'Google Chrome'],
  ['/usr/bin/google-chrome-stable', 'Google Chrome'],
  ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', 'Google Chrome'],
  ['/Applications/Chromium.app/Contents/MacOS/Chromium', 'Chromium'],
];

/** How to get a browser on this kind of machine: the command first, since the start banner shows it. */
export function installHint(platform: NodeJS.Platform = process.platform): string {
  const command = platform === 'darwin' ? 'brew install --cask google-chrome' : 'sudo apt-get install -y chromium';
  return `${command} (${platform === 'darwin' ? 'macOS' : 'Debian/Ubuntu'}), or point SIMFLEET_CHROMIUM at a Chrome or Chromium binary`;
}

export const INSTALL_HINT = installHint();

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function versionOf(path: string): Promise<string> {
  try {
    const { stdout } = await run(path, ['--version'], { timeout: 10_000 });
    return stdout.trim().split('\n').pop() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Where to look after SIMFLEET_CHROMIUM; tests give their own. */
export interface BrowserPlaces {
  /** A Playwright-installed Chromium's path (it may not exist), or undefined. */
  playwright(): string | undefined;
  system: readonly (readonly [string, string])[];
}

const PLACES: BrowserPlaces = {
  playwright: () => {
    try {
      return chromium.executablePath();
    } catch {
      return undefined;
    }
  },
  system: SYSTEM_PATHS,
};

/** The browser to use, or why there is none. */
export async function findChromium(configured: string | undefined, places: BrowserPlaces = PLACES): Promise<BrowserFound | { missing: string }> {
  if (configured) {
    if (await executable(configured)) return { path: configured, source: 'SIMFLEET_CHROMIUM', version: await versionOf(configured) };
    return { missing: `SIMFLEET_CHROMIUM is ${configured}, which is not an executable file` };
  }
  const playwrightPath = places.playwright();
  const candidates: (readonly [string, string])[] = [...(playwrightPath ? [[playwrightPath, 'Playwright-installed Chromium'] as const] : []), ...places.system];
  for (const [path, source] of candidates) {
    if (await executable(path)) return { path, source, version: await versionOf(path) };
  }
  return { missing: `no Chrome or Chromium found (looked for SIMFLEET_CHROMIUM, ${candidates.map(([p]) => p).join(', ')})` };
}
