// At the end of a soak: what of Chromium's memory is garbage not yet collected? Renderers collect
// lazily on a machine with memory to spare, so memory that only grows over a soak may be a leak or
// may be garbage waiting. The soak's worker runs Chromium with a DevTools port (through a wrapper
// passed as SIMFLEET_CHROMIUM: the worker itself is unchanged), and this asks every page to collect
// its garbage, so the soak can measure what stays.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';

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
  /** V8 heap in use and reserved by the pages' isolates (MB, to a tenth). */
  v8UsedMB: number;
  v8TotalMB: number;
}

/**
 * Asks every page of the browser under these processes to collect its garbage; what they hold after
 * it. Each page is reached over a plain DevTools connection of its own, three calls, then closed.
 * Not through Playwright's connectOverCDP: each such connection left something in every page that
 * outlived the page's navigations (0.16 MB more JS heap per page per connection, 16 connections
 * taking a page from 1.0 to 3.6 MB), so the soak's own measuring, once per relaunch cycle, made the
 * renderers it measured grow. A plain connection leaves nothing (1.0 MB after 16).
 */
export async function collectGarbage(browserPids: number[]): Promise<PagesAfterCollection | { error: string }> {
  const port = browserPids.map(devToolsPort).find((p) => p !== null);
  if (!port) return { error: 'no Chromium with a DevTools port found under the worker' };
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl?: string }[];
  const sum: PagesAfterCollection = { pages: 0, domNodes: 0, documents: 0, jsEventListeners: 0, v8UsedMB: 0, v8TotalMB: 0 };
  for (const t of targets) {
    if (t.type !== 'page' || !t.webSocketDebuggerUrl) continue;
    const page = await devtools(t.webSocketDebuggerUrl).catch(() => null);
    if (!page) continue; // a page that closed since the list was read
    try {
      await page.send('HeapProfiler.collectGarbage');
      sum.pages++;
      const c = (await page.send('Memory.getDOMCounters')) as { documents: number; nodes: number; jsEventListeners: number };
      sum.domNodes += c.nodes;
      sum.documents += c.documents;
      sum.jsEventListeners += c.jsEventListeners;
      const h = (await page.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
      sum.v8UsedMB += h.usedSize / 2 ** 20;
      sum.v8TotalMB += h.totalSize / 2 ** 20;
    } catch {
      // A page that navigated or closed mid-way is counted as far as it answered.
    } finally {
      page.close();
    }
  }
  sum.v8UsedMB = Math.round(sum.v8UsedMB * 10) / 10;
  sum.v8TotalMB = Math.round(sum.v8TotalMB * 10) / 10;
  return sum;
}

/** A DevTools connection to one target: commands answered in turn, each within 30 s. */
async function devtools(url: string): Promise<{ send(method: string): Promise<unknown>; close(): void }> {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 64 * 2 ** 20 });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let last = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const p = msg.id === undefined ? undefined : pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id!);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  });
  ws.on('close', () => {
    for (const p of pending.values()) p.reject(new Error('the DevTools connection closed'));
    pending.clear();
  });
  ws.on('error', () => undefined);
  return {
    send(method) {
      const id = ++last;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within 30 s`));
        }, 30_000);
        pending.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        ws.send(JSON.stringify({ id, method }));
      });
    },
    close: () => ws.close(),
  };
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
