// Understanding: how long it takes to turn a tree into an outline, how long a screen read takes end
// to end on a real web device (the phases apart: the tree read on the device, the outline build,
// and the HTTP round trip around them), a read of a screen that has not changed, and how large
// outlines are on every sample-app screen and every real corpus dump.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { TreeSnapshot } from '../../../workers/devices/backend.js';
import { PROFILES } from '../../../workers/devices/web/profiles.js';
import { WebProvider } from '../../../workers/devices/web/provider.js';
import { fingerprintOf } from '../../../workers/understanding/fingerprint.js';
import { ScreenBook } from '../../../workers/understanding/identity.js';
import { outlineText } from '../../../workers/understanding/outline.js';
import { readScreen } from '../../../workers/understanding/screen.js';
import { parseDump } from '../../../workers/understanding/sources/index.js';
import { startFarm } from '../../helpers/farm.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { summarise, type Figure, type Suite } from '../harness.js';

const ROUTES = [
  'inbox',
  'inbox/3',
  'search',
  'settings',
  'settings/notifications',
  'settings/form',
  'settings/wizard',
  'settings/icons',
  'settings/canvas',
  'settings/arcade',
  'settings/photo',
  'settings/loading',
  'hidden-tabs:settings/privacy',
];

export const understandingSuite: Suite = {
  name: 'understanding',
  describe: 'outline build from a 300-node tree, cold and unchanged screen reads end to end on web, outline sizes (sample app and real corpus)',
  async run(): Promise<Figure[]> {
    const farm = await startFarm();
    const provider = new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium: undefined, logger: pino({ level: 'silent' }) });
    await farm.addWorkerWith([provider]);
    const figures: Figure[] = [];
    const S = 'understanding';
    try {
      const device = provider.device('web-1')!;
      await waitFor('device ready', () => device.health.state === 'ready' || undefined, 20_000);
      const page = () => device.currentPageForTests;
      let loads = 0;
      const show = async (spec: string) => {
        // "hidden-tabs:" shows the route with its tab buttons hidden from the tree (probing's case).
        const hidden = spec.startsWith('hidden-tabs:');
        const route = hidden ? spec.slice('hidden-tabs:'.length) : spec;
        await device.open(`${provider.sampleUrl}?bench=${++loads}${hidden ? '&hide-tab-a11y=1' : ''}#/${route}`);
        await page().waitForSelector(`.screen[data-route="${route}"]:not([hidden])`);
        await sleep(route.startsWith('inbox') ? 900 : 500);
      };

      // A real 300-node tree: the inbox with enough rows loaded, cut to its first 300 nodes (a
      // pre-order prefix keeps every parent).
      await show('inbox');
      let tree: TreeSnapshot = await device.tree();
      for (let i = 0; i < 10 && tree.nodes.length < 300; i++) {
        await page().evaluate(() => {
          const c = document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement;
          c.scrollTop = c.scrollHeight;
        });
        await sleep(900);
        tree = await device.tree();
      }
      const t300: TreeSnapshot = { ...tree, nodes: tree.nodes.slice(0, 300) };
      const build: number[] = [];
      for (let i = 0; i < 300; i++) {
        const s = performance.now();
        const r = readScreen(t300, 'web');
        outlineText(r, { device: 'web', screenId: r.fingerprint.hash, name: r.title });
        build.push(performance.now() - s);
      }
      figures.push(
        summarise(S, `outline build from a ${t300.nodes.length}-node tree (elements, regions, lists, fingerprint, text)`, 'ms', build.slice(20), {
          goal: '≤ 5 ms',
        }),
      );

      // Identity of that screen: its fingerprint, then its place in a book of 60 screens of 8 faces
      // each (every face another screen's, so the whole book is compared).
      const reading = readScreen(t300, 'web');
      const book = new ScreenBook();
      for (let k = 0; k < 60 * 8; k++) {
        const tokens = reading.fingerprint.tokens.map((t) => `${t}${k % 60}`);
        book.restore({ id: `n${k % 60}`, name: null, fingerprints: [{ tokens, title: reading.fingerprint.title, hash: `h${k}` }], readings: 1 });
      }
      book.restore({ id: 'this', name: null, fingerprints: [reading.fingerprint], readings: 1 }); // found after all the others: the book does not grow
      const identity: number[] = [];
      for (let i = 0; i < 300; i++) {
        const s = performance.now();
        const fp = fingerprintOf(t300.nodes, reading.elements, reading.regions, reading.lists, reading.title, reading.screen);
        book.identify(fp, reading.title);
        identity.push(performance.now() - s);
      }
      figures.push(
        summarise(S, `identity of a ${t300.nodes.length}-node screen: fingerprint and a book of 60 screens × 8 faces`, 'ms', identity.slice(20), {
          goal: '≤ 1 ms',
        }),
      );

      // Reads through the API: a changed screen read from the tree (cold), and an unchanged one. A
      // screen seen before is answered from memory (the memory suite measures that), so each round
      // is a team of its own, whose memory is empty.
      const total: number[] = [];
      const treeMs: number[] = [];
      const buildMs: number[] = [];
      const warm: number[] = [];
      const sizes: { name: string; chars: number }[] = [];
      // The sensors below the tree, apart: text recognition per read where it ran, probes per
      // screen where a container was silent, and the tree read on those same screens beside them.
      const ocrMs: number[] = [];
      const ocrTreeMs: number[] = [];
      const probes: number[] = [];
      for (let round = 0; round < 3; round++) {
        const agent = await farm.token('agent', `bench-${round}`);
        const created = (await agent.call('createSession', { body: { platform: 'web' } })).body;
        const session = await waitFor(
          'session ready',
          async () => {
            const s = (await agent.call('getSession', { params: { sessionId: created.id } })).body;
            return s.state === 'ready' ? s : undefined;
          },
          20_000,
        );
        const at = { params: { sessionId: session.id }, headers: { accept: 'application/json' } };
        for (const route of ROUTES) {
          await show(route);
          const s = performance.now();
          const res = await agent.call('getScreen', at);
          const ms = performance.now() - s;
          if (res.status !== 200) throw new Error(`GET /screen answered ${res.status}: ${res.text.slice(0, 200)}`);
          if (res.body.read.cached || res.body.read.source !== 'tree') continue; // not a cold read
          if (res.body.read.probe) probes.push(res.body.read.probe.probes);
          if (res.body.read.ocr) {
            // A read that needed the pixel tier is another kind of read: reported on its own.
            ocrMs.push(res.body.read.ocr.ms);
            ocrTreeMs.push(res.body.read.treeMs - res.body.read.ocr.ms);
            continue;
          }
          total.push(ms);
          treeMs.push(res.body.read.treeMs);
          buildMs.push(res.body.read.buildMs);
          if (round === 0) sizes.push({ name: route, chars: (res.body.text as string).length });
          for (let k = 0; k < 5; k++) {
            const w = performance.now();
            const again = await agent.call('getScreen', at);
            if (again.body.read.cached) warm.push(performance.now() - w);
          }
        }
        await agent.call('releaseSession', { params: { sessionId: session.id } });
        await waitFor('device free', async () => ((await farm.admin.call('listDevices')).body.devices[0].state === 'available' ? true : undefined), 20_000);
      }
      figures.push(summarise(S, 'cold screen read on web, end to end (GET /screen after a change)', 'ms', total, { goal: '≤ 80 ms' }));
      figures.push(summarise(S, '  of which: the tree read on the device (CDP AX tree + DOM snapshot)', 'ms', treeMs));
      figures.push(summarise(S, '  of which: the outline build on the worker', 'ms', buildMs));
      figures.push(summarise(S, 'unchanged screen read end to end (answered from the last read, zero tree reads)', 'ms', warm));
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
      const bottleneck = ocrMs.length
        ? `on a cold canvas screen the bottleneck is ${med(ocrMs) > med(ocrTreeMs) ? `text recognition (${Math.round(med(ocrMs))} ms against ${Math.round(med(ocrTreeMs))} ms for the tree and probes)` : `the tree (${Math.round(med(ocrTreeMs))} ms against ${Math.round(med(ocrMs))} ms for recognition)`}`
        : 'text recognition did not run (no recogniser installed?)';
      figures.push(
        summarise(S, 'text recognition per read where the tree leaves pixels unexplained (capture + Tesseract, canvas screens)', 'ms', ocrMs, {
          note: bottleneck,
        }),
      );
      figures.push(summarise(S, '  beside it: the rest of the same read (tree, probing)', 'ms', ocrTreeMs));
      figures.push(summarise(S, 'hit-test probes per screen with a silent container (tab bar hidden from the tree)', 'probes', probes));

      // Sizes: the sample app as served, and every real dump.
      const corpusDir = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
      const ratios: number[] = [];
      for (const d of ['android', 'ios']) {
        for (const f of readdirSync(corpusDir + d)) {
          const raw = readFileSync(`${corpusDir}${d}/${f}`, 'utf8');
          const dump = parseDump(raw);
          const r = readScreen(dump.snapshot, dump.platform);
          const chars = outlineText(r, { device: dump.platform, screenId: r.fingerprint.hash, name: r.title }).length;
          sizes.push({ name: f, chars });
          ratios.push(raw.length / chars);
        }
      }
      figures.push(
        summarise(
          S,
          `outline size, ${sizes.length} screens (${sizes.length - ratios.length} sample app, ${ratios.length} real dumps)`,
          'chars',
          sizes.map((s) => s.chars),
          { goal: 'median ≤ 1,500' },
        ),
      );
      figures.push(summarise(S, 'raw dump size / outline size, real corpus', 'ratio', ratios, { goal: 'median ≥ 15' }));
    } finally {
      await farm.stop();
      await provider.close();
    }
    return figures;
  },
};
