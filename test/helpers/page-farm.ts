// A farm with one web device and an agent's session on it, over pages a test writes itself and
// serves from a temporary directory: the rig of the browser suites that try small hostile pages
// through the real API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { expect } from 'vitest';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { BROWSER_FARM_ENV, type Farm, startFarm } from './farm.js';
import { settledSession } from './sessions.js';
import { serveDirectory } from './static-server.js';
import { waitFor } from './wait.js';

export interface PageFarm {
  farm: Farm;
  provider: WebProvider;
  site: { origin: string; close: () => Promise<void> };
  agent: Awaited<ReturnType<Farm['token']>>;
  session: string;
  /** The session's path parameters, for `agent.call`. */
  at(): { params: { sessionId: string } };
  /** Opens one of the pages on the device and waits for it to settle. */
  open(page: string): Promise<void>;
  close(): Promise<void>;
}

/** `pages` maps a file name to what follows `<head>` (the page's head and body); the session starts on `first`. */
export async function pageFarm(pages: Record<string, string>, team: string, first: string): Promise<PageFarm> {
  const dir = mkdtempSync(join(tmpdir(), `simfleet-${team}-`));
  for (const [name, html] of Object.entries(pages)) writeFileSync(join(dir, name), `<!doctype html><html><head>${html}</body></html>`);
  const site = await serveDirectory(dir);
  const farm = await startFarm({ ...BROWSER_FARM_ENV, SIMFLEET_WEB_ALLOWED_ORIGINS: `*,${site.origin}` });
  const provider = new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium: undefined, logger: pino({ level: 'silent' }) });
  await farm.addWorkerWith([provider]);
  await waitFor('the web device ready', () => provider.device('web-1')!.health.state === 'ready' || undefined, 60_000);
  const agent = await farm.token('agent', team);
  const session = await settledSession(agent, { app: { url: `${site.origin}/${first}` } });
  const at = () => ({ params: { sessionId: session } });
  return {
    farm,
    provider,
    site,
    agent,
    session,
    at,
    async open(page) {
      expect((await agent.call('runAction', { ...at(), body: { action: 'open', url: `${site.origin}/${page}` } })).status).toBe(200);
      await agent.call('waitForScreen', { ...at(), body: { for: 'settled', timeoutMs: 5000, changeTimeoutMs: 300 } });
    },
    async close() {
      await farm.stop();
      await provider.close();
      await site.close();
    },
  };
}
