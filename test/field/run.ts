// The field suite's page pass: every page of the field apps (apps/manifest.json) opened on a real web
// device through a real gateway, read as an outline, and held against the ground truth (truth.ts):
// coverage of every interactive element (role, name, state, a tap point that lands on it, nothing
// merged), and `look` against the screen (the pixel under each tap point in simfleet's image is the
// pixel under it in a screenshot the truth takes itself). `npm run field` runs it and the tasks
// (tasks.ts) and writes bench/results/<date>-field.{md,json}.
import { pino } from 'pino';
import sharp from 'sharp';
import type { components } from '../../openapi/generated/types.js';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { BROWSER_FARM_ENV, type Farm, startFarm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { installPackage } from './apps/install.js';
import { loadManifest, manifestPackages } from './apps/manifest.js';
import { type FieldPage, type FieldServer, serveField } from './apps/serve.js';
import { coverage, type PageCoverage } from './coverage.js';
import { readTruth } from './truth.js';

type Outline = components['schemas']['ScreenOutline'];

export interface FieldRig {
  farm: Farm;
  provider: WebProvider;
  server: FieldServer;
  agent: Awaited<ReturnType<Farm['token']>>;
  session: string;
  close(): Promise<void>;
}

/** Installs the apps asked for (all by default), serves them, and starts a farm with one web device and a session on it. */
export async function fieldRig(only?: string[]): Promise<FieldRig> {
  const manifest = loadManifest();
  const apps = only ? manifest.apps.filter((a) => only.includes(a.id)) : manifest.apps;
  const unknown = only?.filter((id) => !manifest.apps.some((a) => a.id === id)) ?? [];
  if (unknown.length) throw new Error(`no field app ${unknown.join(', ')}; the manifest has ${manifest.apps.map((a) => a.id).join(' ')}`);
  for (const spec of manifestPackages({ ...manifest, apps })) await installPackage(spec);
  const server = await serveField({ manifest: { ...manifest, apps } });
  const farm = await startFarm({ ...BROWSER_FARM_ENV, SIMFLEET_WEB_ALLOWED_ORIGINS: `*,${server.origin}` });
  const provider = new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium: undefined, logger: pino({ level: 'silent' }) });
  await farm.addWorkerWith([provider]);
  await waitFor('the web device ready', () => provider.device('web-1')!.health.state === 'ready' || undefined, 60_000);
  const agent = await farm.token('agent', 'field');
  const session = await settledSession(agent, { app: { url: server.pages[0]!.url } });
  return {
    farm,
    provider,
    server,
    agent,
    session,
    async close() {
      await agent.call('releaseSession', { params: { sessionId: session } }).catch(() => undefined);
      await farm.stop();
      await provider.close();
      await server.close();
    },
  };
}

export interface PageResult {
  app: string;
  kind: string;
  page: string;
  coverage: PageCoverage;
  look: { points: number; agree: number; scale: number; disagreements: string[] };
  outlineChars: number;
  /**
   * Characters of Playwright's own accessibility snapshot of the same page (`ariaSnapshot` of the
   * body): what Playwright MCP's snapshot is built from, less the ref it adds to every line, so a
   * lower bound of what an agent reads there.
   */
  ariaChars: number;
  /**
   * Characters of the snapshot Playwright MCP's `browser_snapshot` hands an agent: Playwright's
   * page snapshot in its "ai" mode (a ref on every line, iframes included), without the few lines
   * of page URL and title MCP puts around it.
   */
  mcpChars: number;
  /** The outline's text as the agent reads it. */
  outline: string;
  error?: string;
}

/** Opens a page on the rig's device and waits for it to settle. */
export async function openPage(rig: FieldRig, url: string): Promise<void> {
  const at = { params: { sessionId: rig.session } };
  const opened = await rig.agent.call('runAction', { ...at, body: { action: 'open', url } });
  if (opened.status !== 200) throw new Error(`open ${url}: ${opened.status} ${opened.text.slice(0, 200)}`);
  await rig.agent.call('waitForScreen', { ...at, body: { for: 'settled', timeoutMs: 8000, changeTimeoutMs: 300 } });
}

export async function readOutline(rig: FieldRig): Promise<Outline> {
  const res = await rig.agent.call('getScreen', { params: { sessionId: rig.session }, query: { live: 'true' }, headers: { accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`screen: ${res.status} ${res.text.slice(0, 200)}`);
  return res.body as Outline;
}

export async function checkPage(rig: FieldRig, p: FieldPage): Promise<PageResult> {
  const base = { app: p.app.id, kind: p.app.kind, page: p.page };
  try {
    await openPage(rig, p.url);
    const outline = await readOutline(rig);
    const page = rig.provider.device('web-1')!.currentPageForTests;
    const truth = await readTruth(page);
    try {
      const cov = await coverage(outline.elements, truth);
      const look = await lookAgrees(rig, outline, page);
      const aria = await page
        .locator('body')
        .ariaSnapshot({ timeout: 5000 })
        .catch(() => '');
      const mcp = await page.ariaSnapshot({ mode: 'ai', timeout: 5000 }).catch(() => '');
      return { ...base, coverage: cov, look, outlineChars: outline.text.length, ariaChars: aria.length, mcpChars: mcp.length, outline: outline.text };
    } finally {
      await truth.close();
    }
  } catch (err) {
    const empty: PageCoverage = { truth: 0, right: 0, absent: 0, roleWrong: 0, nameWrong: 0, stateWrong: 0, merged: 0, checks: [] };
    return {
      ...base,
      coverage: empty,
      look: { points: 0, agree: 0, scale: 0, disagreements: [] },
      outlineChars: 0,
      ariaChars: 0,
      mcpChars: 0,
      outline: '',
      error: (err as Error).message,
    };
  }
}

/**
 * `look` lines up with the outline: at each line's tap point, simfleet's image (scale 1) and a
 * screenshot the harness takes itself, without a clip (the screen as the compositor shows it), have
 * the same colour within a small tolerance (JPEG-free PNGs, so only antialiasing differs).
 */
async function lookAgrees(rig: FieldRig, outline: Outline, page: import('playwright-core').Page): Promise<PageResult['look']> {
  const res = await fetch(`${rig.farm.gateway.url}/v1/sessions/${rig.session}/look?format=png&scale=1`, {
    headers: { authorization: `Bearer ${rig.agent.token}` },
  });
  if (res.status !== 200) throw new Error(`look: ${res.status} ${await res.text()}`);
  const scale = Number(res.headers.get('x-simfleet-scale'));
  if (!(scale > 0)) throw new Error('look: no x-simfleet-scale header');
  const ours = await sharp(Buffer.from(await res.arrayBuffer()))
    .raw()
    .toBuffer({ resolveWithObject: true });
  const cdp = await page.context().newCDPSession(page);
  let theirs;
  try {
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: false });
    theirs = await sharp(Buffer.from(data, 'base64')).resize(ours.info.width, ours.info.height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  } finally {
    await cdp.detach().catch(() => undefined);
  }
  const at = (img: typeof ours, x: number, y: number) => {
    const k = scale; // both images are resized to look's pixels per point
    const i = (Math.min(img.info.height - 1, Math.round(y * k)) * img.info.width + Math.min(img.info.width - 1, Math.round(x * k))) * img.info.channels;
    return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
  };
  let points = 0;
  let agree = 0;
  const disagreements: string[] = [];
  for (const e of outline.elements) {
    if (!e.tap || e.ref === null) continue;
    points++;
    const a = at(ours, e.tap.x, e.tap.y);
    const b = at(theirs, e.tap.x, e.tap.y);
    if (a.every((v, i) => Math.abs(v - b[i]!) <= 24)) agree++;
    else if (disagreements.length < 5) disagreements.push(`@${e.ref} ${e.role} ${JSON.stringify(e.label)} at ${e.tap.x},${e.tap.y}: look ${a} / screen ${b}`);
  }
  return { points, agree, scale, disagreements };
}

export interface FieldPageTotals {
  pages: number;
  errors: number;
  truth: number;
  right: number;
  absent: number;
  roleWrong: number;
  nameWrong: number;
  stateWrong: number;
  merged: number;
  lookPoints: number;
  lookAgree: number;
}

export function totals(results: PageResult[]): FieldPageTotals {
  const sum = (f: (r: PageResult) => number) => results.reduce((s, r) => s + f(r), 0);
  return {
    pages: results.length,
    errors: results.filter((r) => r.error).length,
    truth: sum((r) => r.coverage.truth),
    right: sum((r) => r.coverage.right),
    absent: sum((r) => r.coverage.absent),
    roleWrong: sum((r) => r.coverage.roleWrong),
    nameWrong: sum((r) => r.coverage.nameWrong),
    stateWrong: sum((r) => r.coverage.stateWrong),
    merged: sum((r) => r.coverage.merged),
    lookPoints: sum((r) => r.look.points),
    lookAgree: sum((r) => r.look.agree),
  };
}
