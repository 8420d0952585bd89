// simfleet beside the peer an agent would pick instead: Playwright's MCP server (@playwright/mcp),
// both driven by the same MCP SDK client over stdio, on the same sample-app pages, with the same
// device profile (393 × 852 pt at 3×, mobile, touch, the same user agent), in the same run.
// Compared: characters per observation (its accessibility snapshot vs simfleet's outline) on every
// sample screen, calls and characters for the same 10-step task, and wall time per step.
//
// The peer is installed by this suite into bench/.peers (pinned, never by the test run); if it cannot
// be installed or started, its figures say why and simfleet's are still measured.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { findChromium } from '../../../workers/devices/web/discovery.js';
import { PROFILES } from '../../../workers/devices/web/profiles.js';
import { WebProvider } from '../../../workers/devices/web/provider.js';
import { BROWSER_FARM_ENV, startFarm } from '../../helpers/farm.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { medianOf, summarise, unmeasured, type Figure, type Suite } from '../harness.js';

const S = 'peers';
const PEER = '@playwright/mcp';
const PEER_VERSION = '0.0.83';
const PEERS_DIR = fileURLToPath(new URL('../../../bench/.peers/', import.meta.url));
const CLI = fileURLToPath(new URL('../../../dist/server/cli/main.js', import.meta.url));
const PROFILE = PROFILES['iphone-15']!;

const SCREENS = [
  'inbox',
  'inbox/3',
  'search',
  'settings',
  'settings/notifications',
  'settings/privacy',
  'settings/form',
  'settings/wizard',
  'settings/icons',
  'settings/canvas',
  'settings/arcade',
  'settings/photo',
  'settings/loading',
];

/**
 * The 10-step task of the acting suite, written for each tool as its user would: simfleet takes a
 * label, role or #id; an agent on the peer finds the element's ref in a snapshot (by role and name,
 * as a model reading it would), or, without looking, clicks a Playwright selector.
 */
const TASK: { simfleet: { target: string; role?: string }; line: RegExp; selector: string; lands: string }[] = [
  {
    simfleet: { target: '#message-2' },
    line: /button "[^"]*Barbara Liskov Payment received Message 2:/,
    selector: '[data-testid="message-2"]',
    lands: '#/inbox/2',
  },
  { simfleet: { target: 'Back to Inbox' }, line: /button "Back to Inbox"/, selector: 'role=button[name="Back to Inbox"]', lands: '#/inbox' },
  { simfleet: { target: 'Search', role: 'tab' }, line: /tab "Search"/, selector: 'role=tab[name="Search"]', lands: '#/search' },
  { simfleet: { target: 'Settings', role: 'tab' }, line: /tab "Settings"/, selector: 'role=tab[name="Settings"]', lands: '#/settings' },
  { simfleet: { target: 'Notifications' }, line: /button "Notifications"/, selector: 'role=button[name="Notifications"]', lands: '#/settings/notifications' },
  { simfleet: { target: '#switch-badges' }, line: /switch "Badges"/, selector: '[data-testid="switch-badges"]', lands: '#/settings/notifications' },
  { simfleet: { target: 'Back to Settings' }, line: /button "Back to Settings"/, selector: 'role=button[name="Back to Settings"]', lands: '#/settings' },
  { simfleet: { target: 'Privacy' }, line: /button "Privacy"/, selector: 'role=button[name="Privacy"]', lands: '#/settings/privacy' },
  { simfleet: { target: 'Back to Settings' }, line: /button "Back to Settings"/, selector: 'role=button[name="Back to Settings"]', lands: '#/settings' },
  { simfleet: { target: 'Inbox', role: 'tab' }, line: /tab "Inbox"/, selector: 'role=tab[name="Inbox"]', lands: '#/inbox' },
];
const RUNS = 5;

interface Call {
  text: string;
  ms: number;
  isError: boolean;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Call> {
  const t = performance.now();
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  const ms = performance.now() - t;
  return { text: r.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n'), ms, isError: r.isError === true };
}

export const peersSuite: Suite = {
  name: 'peers',
  describe: `simfleet's MCP server beside ${PEER}@${PEER_VERSION} on the same pages and profile: characters per observation, calls and characters for a 10-step task, time per step`,
  async run(): Promise<Figure[]> {
    if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` (npm run bench does it)');
    const found = await findChromium(process.env.SIMFLEET_CHROMIUM);
    if ('missing' in found) throw new Error(found.missing);
    const chromium = found.path;
    const figures: Figure[] = [];
    const farm = await startFarm(BROWSER_FARM_ENV);
    const provider = new WebProvider({ profiles: [PROFILE], chromium: undefined, logger: pino({ level: 'silent' }) });
    await farm.addWorkerWith([provider]);
    const clients: Client[] = [];
    try {
      await waitFor('device ready', () => provider.device('web-1')!.health.state === 'ready' || undefined, 30_000);
      const sample = provider.sampleUrl!;
      const agent = await farm.token('agent', 'bench-peers');
      const ours = new Client({ name: 'simfleet-bench', version: '0' });
      await ours.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp'],
          env: { SIMFLEET_URL: farm.gateway.url, SIMFLEET_TOKEN: agent.token! },
          stderr: 'ignore',
        }),
      );
      clients.push(ours);
      const started = await call(ours, 'session_start', { platform: 'web' });
      if (started.isError) throw new Error(`simfleet session_start: ${started.text.slice(0, 300)}`);
      const device = provider.device('web-1')!;
      let loads = 0;
      const showOurs = async (route: string) => {
        await device.open(`${sample}?b=${++loads}#/${route}`);
        await sleep(700); // deep links push in 350 ms; the inbox loads its rows in 400 ms
      };

      const peer = await startPeer(chromium).catch((err: Error) => err);
      if (peer instanceof Client) clients.push(peer);
      const peerWhy = peer instanceof Error ? peer.message : null;
      const showPeer = async (route: string) => {
        const nav = await call(peer as Client, 'browser_navigate', { url: `${sample}?p=${++loads}#/${route}` });
        if (nav.isError) throw new Error(`${PEER} browser_navigate: ${nav.text.slice(0, 300)}`);
        await sleep(700);
      };

      // 1. Characters per observation, screen by screen.
      const oursChars: number[] = [];
      const peerChars: number[] = [];
      const oursObsMs: number[] = [];
      const peerObsMs: number[] = [];
      const ratios: number[] = [];
      const perScreen: string[] = [];
      for (const route of SCREENS) {
        await showOurs(route);
        const o = await call(ours, 'screen');
        if (o.isError) throw new Error(`simfleet screen on #/${route}: ${o.text.slice(0, 300)}`);
        oursChars.push(o.text.length);
        oursObsMs.push(o.ms);
        if (peer instanceof Client) {
          await showPeer(route);
          const p = await call(peer, 'browser_snapshot');
          if (p.isError) throw new Error(`${PEER} browser_snapshot on #/${route}: ${p.text.slice(0, 300)}`);
          peerChars.push(p.text.length);
          peerObsMs.push(p.ms);
          ratios.push(p.text.length / o.text.length);
          perScreen.push(`${route} ${p.text.length}/${o.text.length}`);
        }
      }
      figures.push(summarise(S, `simfleet: characters per observation (MCP screen: the outline), ${SCREENS.length} sample screens`, 'chars', oursChars));
      figures.push(summarise(S, 'simfleet: wall time per observation (MCP screen)', 'ms', oursObsMs));
      if (peer instanceof Client) {
        figures.push(summarise(S, `${PEER}: characters per observation (browser_snapshot), same screens`, 'chars', peerChars));
        figures.push(summarise(S, `${PEER}: wall time per observation (browser_snapshot)`, 'ms', peerObsMs));
        figures.push(summarise(S, `ratio: ${PEER} characters / simfleet characters per observation`, '×', ratios, { note: perScreen.join('; ') }));
      }

      // 2. The 10-step task: simfleet in one `do` call, and step by step with `act`; the peer looking
      // before each click (snapshot, then click by ref) and blind (click by selector).
      const oursDo = { calls: [] as number[], chars: [] as number[], perStep: [] as number[], ok: [] as number[] };
      const oursAct = { calls: [] as number[], chars: [] as number[], perStep: [] as number[], ok: [] as number[] };
      for (let run = 0; run < RUNS; run++) {
        await showOurs('inbox');
        const d = await call(ours, 'do', { steps: TASK.map((s) => ({ action: 'tap', ...s.simfleet })) });
        oursDo.calls.push(1);
        oursDo.chars.push(d.text.length);
        oursDo.perStep.push(d.ms / TASK.length);
        if (d.isError) throw new Error(`simfleet do stopped: ${d.text.slice(0, 400)}`);
        oursDo.ok.push(Number(/^done: (\d+) steps/m.exec(d.text)?.[1] ?? 0));

        await showOurs('inbox');
        let chars = 0;
        let ms = 0;
        let ok = 0;
        for (const step of TASK) {
          const a = await call(ours, 'act', { action: 'tap', ...step.simfleet });
          if (a.isError) throw new Error(`simfleet act ${step.simfleet.target}: ${a.text.slice(0, 300)}`);
          chars += a.text.length;
          ms += a.ms;
          if (a.text.startsWith('ok:')) ok++; // the first line is the verdict and its reason
        }
        oursAct.calls.push(TASK.length);
        oursAct.chars.push(chars);
        oursAct.perStep.push(ms / TASK.length);
        oursAct.ok.push(ok);
      }
      figures.push(summarise(S, 'simfleet: calls for the 10-step task (one `do`)', 'calls', oursDo.calls, { goal: '1' }));
      figures.push(summarise(S, 'simfleet: characters returned for the 10-step task (one `do`, verdict per step and the last outline)', 'chars', oursDo.chars));
      figures.push(summarise(S, 'simfleet: wall time per step (one `do`, each step settled and verified)', 'ms', oursDo.perStep));
      figures.push(summarise(S, 'simfleet: steps done and verified in one `do` (of 10)', 'steps', oursDo.ok));
      figures.push(summarise(S, 'simfleet: steps with the verdict ok, step by step (of 10)', 'steps', oursAct.ok));
      figures.push(
        summarise(
          S,
          'simfleet: characters returned for the 10-step task step by step (10 × act, each with its verdict and settled outline)',
          'chars',
          oursAct.chars,
        ),
      );
      figures.push(summarise(S, 'simfleet: wall time per step, step by step (act)', 'ms', oursAct.perStep));

      if (peer instanceof Client) {
        type Way = { calls: number[]; chars: number[]; perStep: number[]; landed: number[] };
        const way = (): Way => ({ calls: [], chars: [], perStep: [], landed: [] });
        const seeing = way();
        const blind = way();
        /** The task from the inbox, one way: `stepOn` makes a step's calls, each passed through `count`. */
        const runTask = async (into: Way, stepOn: (step: (typeof TASK)[number], count: (c: Call) => Call) => Promise<Call>) => {
          await showPeer('inbox');
          let calls = 0;
          let chars = 0;
          let ms = 0;
          let landed = 0;
          const count = (c: Call) => {
            calls++;
            chars += c.text.length;
            ms += c.ms;
            return c;
          };
          for (const step of TASK) {
            const click = await stepOn(step, count);
            if (!click.isError && pageUrl(click.text).endsWith(step.lands)) landed++;
          }
          into.calls.push(calls);
          into.chars.push(chars);
          into.perStep.push(ms / TASK.length);
          into.landed.push(landed);
        };
        for (let run = 0; run < RUNS; run++) {
          await runTask(seeing, async (step, count) => {
            const snap = count(await call(peer, 'browser_snapshot'));
            const ref = refFor(snap.text, step.line);
            if (!ref) throw new Error(`${PEER}: no element matching ${step.line} in the snapshot:\n${snap.text.slice(0, 1500)}`);
            return count(await call(peer, 'browser_click', { element: step.simfleet.target, target: ref }));
          });
          await runTask(blind, async (step, count) => count(await call(peer, 'browser_click', { element: step.simfleet.target, target: step.selector })));
        }
        const note = 'the snapshot after a click goes to a file on the server, not into the response';
        figures.push(
          summarise(S, `${PEER}: calls for the 10-step task, looking before each step (browser_snapshot + browser_click by ref)`, 'calls', seeing.calls, {
            note,
          }),
        );
        figures.push(summarise(S, `${PEER}: characters returned for the 10-step task, looking before each step`, 'chars', seeing.chars));
        figures.push(
          summarise(S, `${PEER}: wall time per step, looking before each step`, 'ms', seeing.perStep, {
            note: 'its default 500 ms settle wait after each action included',
          }),
        );
        figures.push(summarise(S, `${PEER}: steps that landed on the expected page, looking (of 10)`, 'steps', seeing.landed));
        figures.push(
          summarise(S, `${PEER}: calls for the 10-step task, blind (browser_click by selector, no snapshot)`, 'calls', blind.calls, {
            note: 'nothing read back: no verdict, no page text',
          }),
        );
        figures.push(summarise(S, `${PEER}: characters returned for the 10-step task, blind`, 'chars', blind.chars));
        figures.push(summarise(S, `${PEER}: wall time per step, blind`, 'ms', blind.perStep));
        const r = (a: number[], b: number[]) => Math.round((medianOf(a) / medianOf(b)) * 100) / 100;
        figures.push(summarise(S, `ratio: ${PEER} (looking) / simfleet (one do): calls`, '×', [r(seeing.calls, oursDo.calls)]));
        figures.push(summarise(S, `ratio: ${PEER} (looking) / simfleet (one do): characters`, '×', [r(seeing.chars, oursDo.chars)]));
        figures.push(summarise(S, `ratio: ${PEER} (looking) / simfleet (one do): wall time per step`, '×', [r(seeing.perStep, oursDo.perStep)]));
        figures.push(summarise(S, `ratio: ${PEER} (blind) / simfleet (one do): wall time per step`, '×', [r(blind.perStep, oursDo.perStep)]));
      } else {
        for (const f of ['characters per observation', 'calls, characters and time per step for the 10-step task', 'ratios'])
          figures.push(unmeasured(S, `${PEER}: ${f}`, '', peerWhy!));
      }
      await call(ours, 'session_end');
    } finally {
      for (const c of clients) await c.close().catch(() => undefined);
      await farm.stop();
      await provider.close();
    }
    return figures;
  },
};

/** Installs the pinned peer into bench/.peers once; later runs reuse it. */
async function installPeer(): Promise<string> {
  const cli = `${PEERS_DIR}node_modules/${PEER}/cli.js`;
  const pkg = `${PEERS_DIR}node_modules/${PEER}/package.json`;
  if (existsSync(pkg) && (JSON.parse(await readFile(pkg, 'utf8')) as { version: string }).version === PEER_VERSION) return cli;
  await mkdir(PEERS_DIR, { recursive: true });
  await writeFile(
    `${PEERS_DIR}package.json`,
    `${JSON.stringify({ private: true, description: 'peers installed by npm run bench -- peers; not part of simfleet' }, null, 2)}\n`,
  );
  console.error(`   installing ${PEER}@${PEER_VERSION} into bench/.peers (browsers are not downloaded: it is pointed at the system Chromium)`);
  try {
    await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', PEERS_DIR, `${PEER}@${PEER_VERSION}`], {
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      timeout: 300_000,
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    // npm's first error lines say what went wrong (the code, the host); its last ones say where its log is.
    const lines = (e.stderr || e.message)
      .trim()
      .split('\n')
      .filter((l) => /error/i.test(l) && !/complete log|proxy/.test(l));
    throw new Error(`could not install ${PEER}@${PEER_VERSION}: ${lines.slice(0, 3).join(' ') || e.message}`);
  }
  if (!existsSync(cli)) throw new Error(`${PEER}@${PEER_VERSION} installed without ${cli}`);
  return cli;
}

/** The peer on stdio, headless on the system Chromium, with simfleet's iPhone profile. */
async function startPeer(chromium: string): Promise<Client> {
  const cli = await installPeer();
  const config = `${PEERS_DIR}playwright-mcp.json`;
  await writeFile(
    config,
    JSON.stringify({
      browser: {
        browserName: 'chromium',
        isolated: true,
        launchOptions: { headless: true, executablePath: chromium, chromiumSandbox: false },
        contextOptions: {
          viewport: PROFILE.viewport,
          deviceScaleFactor: PROFILE.deviceScaleFactor,
          isMobile: true,
          hasTouch: true,
          userAgent: PROFILE.userAgent,
        },
      },
      outputDir: `${PEERS_DIR}output`,
    }),
  );
  const client = new Client({ name: 'simfleet-bench', version: '0' });
  try {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [cli, '--config', config, '--image-responses', 'omit'], cwd: PEERS_DIR, stderr: 'ignore' }),
    );
  } catch (err) {
    throw new Error(`${PEER} did not start: ${(err as Error).message}`);
  }
  return client;
}

/** The ref of the first snapshot line matching `line`, as an agent reading the snapshot would pick. */
function refFor(snapshot: string, line: RegExp): string | null {
  for (const l of snapshot.split('\n')) if (line.test(l)) return /\[ref=([A-Za-z0-9]+)\]/.exec(l)?.[1] ?? null;
  return null;
}

function pageUrl(text: string): string {
  return /- Page URL: (\S+)/.exec(text)?.[1] ?? '';
}
