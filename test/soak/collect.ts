// At the end of a soak: what of Chromium's memory is garbage not yet collected? Renderers collect
// lazily on a machine with memory to spare, so memory that only grows over a soak may be a leak or
// may be garbage waiting. The soak's worker runs Chromium with a DevTools port (through a wrapper
// passed as SIMFLEET_CHROMIUM: the worker itself is unchanged), and this asks every page to collect
// its garbage, so the soak can measure what stays.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** A script that runs the host's Chromium with a DevTools port of its own choosing; null without one. */
export function debuggableChromium(dir: string): string | null {
  const real = [process.env.SIMFLEET_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!real) return null;
  const path = join(dir, 'chromium-with-devtools-port');
  writeFileSync(path, `#!/bin/sh\nexec '${real}' --remote-debugging-port=0 "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * What the pages hold after collecting their garbage, summed over the pages. Each device's page has a
 * renderer process of its own (a browser context per device), so the V8 heap here is the renderers'
 * JS heap: renderer memory that grows while this stays flat is native (Blink, its allocator, caches),
 * and documents above the page count are documents kept after their page navigated away.
 */
export interface PagesAfterCollection {
  pages: number;
  domNodes: number;
  documents: number;
  jsEventListeners: number;
  /** V8 heap in use and reserved by the pages' isolates (MB). */
  v8UsedMB: number;
  v8TotalMB: number;
}

/** Asks every page of the browser under these processes to collect its garbage; what they hold after it. */
export async function collectGarbage(browserPids: number[]): Promise<PagesAfterCollection | { error: string }> {
  const port = browserPids.map(devToolsPort).find((p) => p !== null);
  if (!port) return { error: 'no Chromium with a DevTools port found under the worker' };
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const sum: PagesAfterCollection = { pages: 0, domNodes: 0, documents: 0, jsEventListeners: 0, v8UsedMB: 0, v8TotalMB: 0 };
    for (const context of browser.contexts()) {
      for (const page of context.pages()) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('HeapProfiler.collectGarbage').then(() => sum.pages++, () => undefined);
        await cdp.send('Memory.getDOMCounters').then((c) => {
          sum.domNodes += c.nodes;
          sum.documents += c.documents;
          sum.jsEventListeners += c.jsEventListeners;
        }, () => undefined);
        await cdp.send('Runtime.getHeapUsage').then((h) => {
          sum.v8UsedMB += h.usedSize / 2 ** 20;
          sum.v8TotalMB += h.totalSize / 2 ** 20;
        }, () => undefined);
        await cdp.detach().catch(() => undefined);
      }
    }
    sum.v8UsedMB = Math.round(sum.v8UsedMB);
    sum.v8TotalMB = Math.round(sum.v8TotalMB);
    return sum;
  } finally {
    // A browser connected to, not launched: closing only disconnects (its contexts are the worker's).
    await browser.close().catch(() => undefined);
  }
}

/** The DevTools port the browser process wrote into its profile folder, if it has one. */
function devToolsPort(pid: number): number | null {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (args.some((a) => a.startsWith('--type='))) return null; // a child process, not the browser
    const dir = args.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
    if (!dir) return null;
    const port = Number(readFileSync(join(dir, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}
