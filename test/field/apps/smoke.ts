// The field apps' smoke check: opens every page of every manifest app in one Chromium, as the
// iPhone 15 web device shows it (393 x 852 points, scale 3, touch, mobile), and prints per page the
// number of truth elements (test/field/truth.ts), the page's console errors and its failed
// requests. Exits non-zero when a page does not load, shows no uncovered interactive element, or
// an uncovered element's own screen centre does not hit it (truth.hits: the coordinates' check).
//   node --import tsx test/field/apps/smoke.ts [--only ID[,ID…]] [--verbose] [--shots DIR] [--json FILE]
// The packages must be installed first (install.ts). Chromium cannot reach anything but loopback:
// its host resolver maps every other name to nothing, so a page's forgotten CDN address shows up as
// a failed request instead of leaving the machine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { PROFILES } from '../../../workers/devices/web/profiles.js';
import { readTruth, type TruthElement, truthLine } from '../truth.js';
import { serveField } from './serve.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = arg('--only')?.split(',');
const verbose = process.argv.includes('--verbose');
const shots = arg('--shots');
const jsonOut = arg('--json');
const profile = PROFILES['iphone-15']!;

interface PageResult {
  app: string;
  page: string;
  loaded: boolean;
  error?: string;
  elements: number;
  uncovered: number;
  consoleErrors: string[];
  failedRequests: string[];
  /** Uncovered elements whose own screen centre did not hit them (truth.hits): a coordinate error. */
  missedHits: string[];
  ok: boolean;
}

const within = (inner: TruthElement, outer: TruthElement) =>
  inner.screen.x >= outer.screen.x - 0.5 &&
  inner.screen.y >= outer.screen.y - 0.5 &&
  inner.screen.x + inner.screen.width <= outer.screen.x + outer.screen.width + 0.5 &&
  inner.screen.y + inner.screen.height <= outer.screen.y + outer.screen.height + 0.5;

const server = await serveField();
const pages = server.pages.filter((p) => !only || only.includes(p.app.id));
if (shots) mkdirSync(shots, { recursive: true });
let browser: Browser | undefined;
const results: PageResult[] = [];
try {
  browser = await chromium.launch({
    executablePath: process.env.SIMFLEET_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  for (const { app, page: path, url } of pages) {
    // A context per page: no storage, cookies or service workers carried from one app to the next.
    const context = await browser.newContext({
      viewport: profile.viewport,
      screen: profile.viewport,
      deviceScaleFactor: profile.deviceScaleFactor,
      isMobile: true,
      hasTouch: true,
      userAgent: profile.userAgent,
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    const failedRequests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text().slice(0, 200));
    });
    page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message.slice(0, 200)}`));
    page.on('requestfailed', (r) => failedRequests.push(`${r.url().slice(0, 160)} (${r.failure()?.errorText ?? '?'})`));
    page.on('response', (r) => {
      if (r.status() >= 400) failedRequests.push(`${r.url().slice(0, 160)} (HTTP ${r.status()})`);
    });
    const result: PageResult = { app: app.id, page: path, loaded: false, elements: 0, uncovered: 0, consoleErrors, failedRequests, missedHits: [], ok: false };
    try {
      const response = await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
      if (!response?.ok()) throw new Error(`HTTP ${response?.status() ?? 'no response'}`);
      result.loaded = true;
      // Scripts that render after load (routers, templates fetched by XHR), then their transitions.
      await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
      await page.waitForTimeout(800);
      const truth = await readTruth(page);
      try {
        result.elements = truth.elements.length;
        result.uncovered = truth.elements.filter((e) => !e.covered).length;
        // Self-check of the coordinates: a tap at an uncovered element's screen centre hits it (or a truth element inside it).
        for (const e of truth.elements.filter((x) => !x.covered)) {
          const got = await truth.hits(e.screen.x + e.screen.width / 2, e.screen.y + e.screen.height / 2);
          if (got !== e && !(got && within(got, e)))
            result.missedHits.push(`${e.role} "${e.name.slice(0, 30)}" hit ${got ? `${got.role} "${got.name.slice(0, 30)}"` : 'nothing'}`);
        }
        if (verbose) for (const e of truth.elements) console.log(`    ${truthLine(e)}`);
        if (verbose && (truth.viewport.scale !== 1 || truth.viewport.layoutWidth !== profile.viewport.width)) {
          console.log(`    viewport: layout ${truth.viewport.layoutWidth} px wide, scale ${truth.viewport.scale.toFixed(3)}`);
        }
      } finally {
        await truth.close();
      }
      if (shots) await page.screenshot({ path: join(shots, `${app.id}--${path.replace(/[^\w.-]+/g, '_')}.png`), scale: 'css' });
    } catch (err) {
      result.error = (err as Error).message.split('\n')[0];
    } finally {
      await context.close();
    }
    result.ok = result.loaded && result.uncovered > 0 && result.missedHits.length === 0;
    results.push(result);
    const flag = result.ok ? 'ok  ' : 'FAIL';
    console.log(
      `${flag} ${app.id.padEnd(26)} ${path.padEnd(52)} ${String(result.elements).padStart(4)} elements (${result.uncovered} uncovered)` +
        `${consoleErrors.length ? `, ${consoleErrors.length} console errors` : ''}${failedRequests.length ? `, ${failedRequests.length} failed requests` : ''}` +
        `${result.missedHits.length ? `, ${result.missedHits.length} centres missed` : ''}${result.error ? ` — ${result.error}` : ''}`,
    );
    for (const e of consoleErrors.slice(0, 5)) console.log(`       console: ${e}`);
    for (const f of failedRequests.slice(0, 5)) console.log(`       request: ${f}`);
    for (const h of result.missedHits.slice(0, 5)) console.log(`       centre: ${h}`);
  }
} finally {
  await browser?.close();
  await server.close();
}
const failed = results.filter((r) => !r.ok);
const apps = new Set(results.map((r) => r.app));
console.log(
  `\n${results.length - failed.length}/${results.length} pages of ${apps.size} apps passed; ${results.reduce((n, r) => n + r.elements, 0)} truth elements; ` +
    `${results.filter((r) => r.consoleErrors.length).length} pages with console errors, ${results.filter((r) => r.failedRequests.length).length} with failed requests`,
);
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(results, null, 1)}\n`);
process.exit(failed.length ? 1 : 0);
