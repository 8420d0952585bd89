// The pixel tier's pure parts — where the tree leaves drawn pixels unexplained, how Tesseract's TSV
// becomes lines, what a line read from pixels may answer for — the engine against the real
// Tesseract binary where it is installed (CI installs it; the suite is skipped, and says so, where
// not), and the delivery verdict.
import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { DeviceBackend, TreeNode } from '../../workers/devices/backend.js';
import { RecogniserBusyError, Tesseract, type TextRecogniser } from '../../workers/understanding/ocr/engine.js';
import { RecognitionCache } from '../../workers/understanding/ocr/cache.js';
import { readPixels } from '../../workers/understanding/ocr/read.js';
import { parseTsv } from '../../workers/understanding/ocr/tsv.js';
import { areasToRead } from '../../workers/understanding/ocr/where.js';
import { locate, parseTarget } from '../../workers/understanding/refs.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { probeContainer, silentContainers } from '../../workers/understanding/probe.js';

const SCREEN = { widthPt: 400, heightPt: 800, scale: 2 };
const W = 50;
const H = 100; // 8 pt per grid pixel

function grid(fill = 240): { width: number; height: number; data: Uint8Array } {
  return { width: W, height: H, data: new Uint8Array(W * H).fill(fill) };
}
function paint(g: ReturnType<typeof grid>, x0: number, y0: number, x1: number, y1: number, v: number): void {
  for (let y = y0 / 8; y < y1 / 8; y++) for (let x = x0 / 8; x < x1 / 8; x++) g.data[y * W + x] = v;
}
let next = 0;
function node(role: string, label: string, frame: TreeNode['frame'], extra: Partial<TreeNode> = {}): TreeNode {
  return {
    index: next++,
    parent: null,
    role,
    label,
    value: null,
    states: {},
    frame,
    id: null,
    source: 'web',
    interactive: false,
    unnamed: false,
    offscreen: false,
    ...extra,
  };
}

describe('where the tree leaves pixels unexplained', () => {
  it('finds a drawn area no element accounts for, and not the ones elements cover', () => {
    const g = grid();
    paint(g, 40, 200, 360, 440, 30); // a canvas-like dark box
    paint(g, 16, 40, 200, 72, 20); // text the tree has
    const nodes = [node('scroll', '', { x: 0, y: 0, width: 400, height: 800 }), node('text', 'Hello', { x: 16, y: 40, width: 184, height: 32 })];
    const areas = areasToRead(nodes, SCREEN, g);
    expect(areas).toHaveLength(1);
    expect(areas[0]!.why).toBe('uncovered');
    const b = areas[0]!.box;
    expect(b.x).toBeLessThanOrEqual(40);
    expect(b.y).toBeLessThanOrEqual(200);
    expect(b.x + b.width).toBeGreaterThanOrEqual(360);
    expect(b.y + b.height).toBeGreaterThanOrEqual(440);
  });

  it('asks for nothing on a screen whose drawn parts all belong to elements', () => {
    const g = grid();
    paint(g, 16, 40, 200, 72, 20);
    expect(areasToRead([node('text', 'Hello', { x: 16, y: 40, width: 184, height: 32 })], SCREEN, g)).toEqual([]);
  });

  it('reads the whole screen when the tree says nothing at all', () => {
    expect(areasToRead([node('scroll', '', { x: 0, y: 0, width: 400, height: 800 })], SCREEN, grid())).toEqual([
      { box: { x: 0, y: 0, width: 400, height: 800 }, why: 'empty-tree' },
    ]);
  });

  it('looks into a large drawn area for its parts, against its own background', () => {
    const g = grid();
    paint(g, 24, 80, 376, 720, 35); // a game's dark canvas
    paint(g, 40, 96, 72, 128, 220); // a letter
    paint(g, 160, 600, 280, 656, 170); // a button
    const areas = areasToRead([node('heading', 'Arcade', { x: 100, y: 10, width: 200, height: 30 })], SCREEN, g);
    expect(areas.length).toBe(2);
    expect(areas.every((a) => a.box.width * a.box.height < 200 * 200)).toBe(true);
  });
});

describe('a tree the pixels contradict', () => {
  const labelled = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ ...node('text', `Row ${i}`, { x: 16, y: 100 + i * 48, width: 200, height: 20 }), index: i }));

  it('is when most labelled elements sit where nothing is drawn: the whole screen is read', () => {
    const g = grid(); // blank: nothing drawn anywhere the tree says text is
    paint(g, 16, 100, 216, 120, 40); // only the first row is drawn
    expect(areasToRead(labelled(5), SCREEN, g)).toEqual([{ box: { x: 0, y: 0, width: 400, height: 800 }, why: 'contradicted' }]);
  });

  it('is not when the text is drawn, nor for a tree of one or two words', () => {
    const g = grid();
    for (let i = 0; i < 5; i++) paint(g, 16, 96 + i * 48, 216, 120 + i * 48, 40);
    expect(areasToRead(labelled(5), SCREEN, g).some((a) => a.why === 'contradicted')).toBe(false);
    expect(areasToRead(labelled(2), SCREEN, grid()).some((a) => a.why === 'contradicted')).toBe(false);
  });
});

describe("Tesseract's TSV", () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '1\t1\t0\t0\t0\t0\t0\t0\t393\t852\t-1\t',
    '5\t1\t1\t1\t1\t1\t21\t47\t46\t13\t96.9\tScore',
    '5\t1\t1\t1\t1\t2\t74\t47\t41\t13\t96.9\t4210',
    '5\t1\t2\t1\t1\t1\t88\t113\t2\t2\t73.3\t-',
    '5\t1\t3\t1\t1\t1\t10\t200\t30\t13\t41.0\tlll',
    '5\t1\t4\t1\t1\t1\t302\t787\t39\t13\t96.9\tBack',
  ].join('\n');

  it('joins words into lines with their box and mean confidence, dropping marks and low-confidence edges', () => {
    const lines = parseTsv(tsv);
    expect(lines.map((l) => l.text)).toEqual(['Score 4210', 'Back']);
    expect(lines[0]).toMatchObject({ left: 21, top: 47, width: 94, height: 13 });
    expect(lines[0]!.conf).toBeCloseTo(96.9);
  });
});

describe('what a line read from pixels may answer for', () => {
  const reading = () =>
    readScreen(
      {
        nodes: [
          node('heading', 'Arcade', { x: 100, y: 10, width: 200, height: 30 }),
          node('text', 'B', { x: 20, y: 90, width: 20, height: 28 }, { source: 'ocr', confidence: 0.92 }),
          node('text', 'START', { x: 150, y: 500, width: 90, height: 28 }, { source: 'ocr', confidence: 0.96 }),
        ].map((n, i) => ({ ...n, index: i })),
        skippedInvisible: 0,
        screen: SCREEN,
        durationMs: 0,
      },
      'web',
    );
  const find = (target: string) => locate(parseTarget(target), { reading: reading(), screen: { id: 's', name: 'Arcade' } }, undefined);

  it('answers its exact words, and says the answer came from pixels', () => {
    expect(find('START').how).toBe('ocr');
  });

  it('never answers a near miss: "Back" is not a lone "B", "STAR" is not "START"', () => {
    expect(() => find('Back')).toThrow(/nothing on screen/);
    expect(() => find('STAR')).toThrow(/nothing on screen/);
  });
});

const tesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!tesseract)('the Tesseract engine (installed here)', () => {
  it('reads drawn words with their boxes, and says when it cannot run', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><rect width="100%" height="100%" fill="white"/><text x="20" y="60" font-size="28" font-family="sans-serif">Level 3</text></svg>';
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const engine = new Tesseract('tesseract', pino({ level: 'silent' }));
    expect((await engine.status()).available).toBe(true);
    const lines = await engine.recognise(png);
    expect(lines.map((l) => l.text)).toEqual(['Level 3']);
    expect(lines[0]!.left).toBeGreaterThanOrEqual(15);
    expect(lines[0]!.left).toBeLessThan(30);
    const missing = new Tesseract('/nonexistent/tesseract', pino({ level: 'silent' }));
    expect(await missing.status()).toMatchObject({ available: false, hint: expect.stringContaining('apt-get install -y tesseract-ocr') });
  });
});

describe("the pixel tier's time budget", () => {
  it('answers at the budget with what it read, counts the areas left, and the next read goes on from there', async () => {
    const png = await sharp({ create: { width: 800, height: 1600, channels: 3, background: { r: 240, g: 240, b: 240 } } })
      .png()
      .toBuffer();
    const device = { screenshot: async () => ({ png, width: 800, height: 1600, scale: 2 }), screen: () => SCREEN } as unknown as DeviceBackend;
    let runs = 0;
    // A recogniser that finds text in the first area at once and thinks for 300 ms about the rest,
    // honouring a time limit as the Tesseract engine does (by killing its process). A read that
    // handed its runs only the time it had left never got past the first slow run, read after read.
    const slow: TextRecogniser = {
      status: async () => ({ available: true, detail: 'fake' }),
      recognise: (_png, _layout, timeoutMs = 8000) => {
        runs++;
        if (runs === 1) return Promise.resolve([{ text: 'Ready', conf: 90, words: [], left: 4, top: 4, width: 60, height: 20 }]);
        return new Promise((resolve, reject) =>
          setTimeout(() => (timeoutMs < 300 ? reject(new Error(`no answer within ${timeoutMs} ms`)) : resolve([])), Math.min(300, timeoutMs)),
        );
      },
    };
    const cached = new RecognitionCache(slow);
    // Widths differ so that no two areas' crops are the same pixels (which the cache would rightly share).
    const area = (i: number) => ({ box: { x: 0, y: i * 100, width: 400 - i * 20, height: 40 }, why: 'uncovered' as const });
    const areas = [0, 1, 2, 3, 4, 5].map(area);
    const t0 = performance.now();
    const first = await readPixels(device, areas, cached, 10, 500);
    const took = performance.now() - t0;
    expect(first.nodes.map((n) => n.label)).toEqual(['Ready']);
    expect(first.unread).toBeGreaterThanOrEqual(4); // the second area's ladder was cut; the rest never began
    expect(took).toBeLessThan(1500); // it answered at its budget, well short of six areas × four rungs × 300 ms
    // Reading the same screen again goes on where the last read stopped: the run cut at the budget
    // finished into the cache, and no rung is ever run twice. Within a few reads all is read.
    const unread = [first.unread];
    while (unread.at(-1)! > 0 && unread.length < 20) unread.push((await readPixels(device, areas, cached, 10, 500)).unread);
    expect(unread.at(-1)).toBe(0);
    for (let i = 1; i < unread.length; i++) expect(unread[i]).toBeLessThanOrEqual(unread[i - 1]!);
    expect(runs).toBeLessThanOrEqual(1 + 5 * 4); // the first area's one rung, four rungs for each of the others
    expect(cached.counts.hits).toBeGreaterThan(0);
  });

  it('a recogniser too busy to take a run leaves the area for the next read, not a failed read', async () => {
    const png = await sharp({ create: { width: 800, height: 1600, channels: 3, background: { r: 240, g: 240, b: 240 } } })
      .png()
      .toBuffer();
    const device = { screenshot: async () => ({ png, width: 800, height: 1600, scale: 2 }), screen: () => SCREEN } as unknown as DeviceBackend;
    const busy: TextRecogniser = {
      status: async () => ({ available: true, detail: 'fake' }),
      recognise: () => Promise.reject(new RecogniserBusyError('32 runs waiting')),
    };
    const r = await readPixels(device, [{ box: { x: 0, y: 0, width: 400, height: 40 }, why: 'uncovered' }], busy, 10, 500);
    expect(r).toMatchObject({ nodes: [], unread: 1 });
    const broken: TextRecogniser = { ...busy, recognise: () => Promise.reject(new Error('exit 1: no eng.traineddata')) };
    await expect(readPixels(device, [{ box: { x: 0, y: 0, width: 400, height: 40 }, why: 'uncovered' }], broken, 10, 500)).rejects.toThrow(/traineddata/);
  });
});

describe('the delivery verdict', () => {
  const base = { settle: 'no-change' as const, before: 's1', after: 's1', predicted: null, stateChanged: false };
  it('tells an input the app ignored from one it never received, and says "may" where the platform cannot count', async () => {
    const { decide } = await import('../../workers/memory/verdict.js');
    expect(decide({ ...base, delivered: true }).verdict).toBe('no-visible-change');
    expect(decide({ ...base, delivered: false })).toMatchObject({ verdict: 'not-delivered', reason: expect.stringContaining('was not delivered') });
    expect(decide({ ...base, delivered: null })).toMatchObject({ verdict: 'not-delivered', reason: expect.stringContaining('may not have been delivered') });
    // Not input (back, open): nothing to count, and no-change is what it is.
    expect(decide(base).verdict).toBe('no-visible-change');
    // Anything that changed is judged as before, whatever the count.
    expect(decide({ ...base, stateChanged: true, changedHow: 'the switch turned on', delivered: null }).verdict).toBe('ok');
  });

  it('does not call staying on the same screen ok when only pixels moved and nothing the screen says changed', async () => {
    const { decide } = await import('../../workers/memory/verdict.js');
    // Enter in an empty to-do field: a focus ring the last tap began still fades; the edge Enter →
    // this screen is remembered from when Enter added a row.
    const loop = { settle: 'settled' as const, before: 's1', after: 's1', predicted: 's1', stateChanged: false, delivered: true };
    expect(decide({ ...loop, contentChanged: false })).toMatchObject({ verdict: 'unverified', reason: expect.stringContaining('only pixels changed') });
    expect(decide({ ...loop, contentChanged: true }).verdict).toBe('ok');
    // Arriving at another screen the action has led to before is ok on its own.
    expect(decide({ ...loop, after: 's2', predicted: 's2', contentChanged: false }).verdict).toBe('ok');
  });
});

describe('hit-test probing', () => {
  const bar = { ...node('tabbar', 'Tabs', { x: 0, y: 700, width: 400, height: 100 }), index: 0 };

  it('finds the controls of a silent container with a few coarse seeds', async () => {
    const tabs = [0, 1, 2].map((i) => ({ role: 'tab', label: `Tab ${i}`, frame: { x: i * 133, y: 710, width: 133, height: 60 }, id: null, interactive: true }));
    let probes = 0;
    const r = await probeContainer(
      bar,
      async (pts) =>
        pts.map(
          (p) => (
            probes++, tabs.find((t) => p.x >= t.frame.x && p.x < t.frame.x + t.frame.width && p.y >= t.frame.y && p.y < t.frame.y + t.frame.height) ?? null
          ),
        ),
      10,
    );
    expect(r.nodes.map((n) => [n.label, n.parent, n.probed, n.index])).toEqual([
      ['Tab 0', 0, true, 10],
      ['Tab 1', 0, true, 11],
      ['Tab 2', 0, true, 12],
    ]);
    expect(r.probes).toBe(probes);
    expect(r.probes).toBeLessThanOrEqual(6);
  });

  it('subdivides only where nothing was hit, down to a fingertip, and reports every probe', async () => {
    // One small control in a corner the seeds miss.
    const small = { role: 'button', label: 'x', frame: { x: 360, y: 760, width: 30, height: 30 }, id: null, interactive: true };
    const seen: { x: number; y: number }[] = [];
    const r = await probeContainer(bar, async (pts) => pts.map((p) => (seen.push(p), p.x >= 360 && p.x < 390 && p.y >= 760 && p.y < 790 ? small : null)), 1);
    expect(r.nodes.map((n) => n.label)).toEqual(['x']);
    expect(r.probes).toBe(seen.length);
    expect(r.probes).toBeGreaterThan(4); // the seeds alone missed it
    expect(r.probes).toBeLessThanOrEqual(64);
  });

  it('stops at its deadline with what it found, counting the probes of the round it stopped waiting for', async () => {
    // One small control in a corner the seeds miss: the seeds' round answers at once, the next
    // round never does (a platform stuck behind other work).
    const small = { role: 'button', label: 'x', frame: { x: 360, y: 760, width: 30, height: 30 }, id: null, interactive: true };
    const sent: number[] = [];
    const stuck = (pts: { x: number; y: number }[]) => (
      sent.push(pts.length), sent.length === 1 ? Promise.resolve(pts.map(() => null)) : new Promise<never>(() => undefined)
    );
    const t0 = performance.now();
    const r = await probeContainer(bar, stuck, 1, t0 + 300);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r.cut).toBe(true);
    expect(sent.length).toBe(2);
    expect(r.nodes).toEqual([]);
    expect(r.probes).toBe(sent[0]! + sent[1]!); // spent, though never answered
    // A deadline already past: nothing is sent.
    const late = await probeContainer(bar, async (pts) => pts.map((p) => (p.x >= 360 && p.y >= 760 ? small : null)), 1, performance.now() - 1);
    expect(late).toEqual({ nodes: [], probes: 0, cut: true });
    // With no deadline it goes on until it finds the control, and is not cut.
    const whole = await probeContainer(bar, async (pts) => pts.map((p) => (p.x >= 360 && p.x < 390 && p.y >= 760 && p.y < 790 ? small : null)), 1);
    expect(whole.cut).toBe(false);
    expect(whole.nodes.map((n) => n.label)).toEqual(['x']);
  });

  it('probes only containers the tree left empty whose pixels show something', () => {
    const g = grid();
    paint(g, 0, 704, 400, 800, 200);
    paint(g, 40, 720, 88, 760, 60); // an icon drawn in the bar
    const withChild = [bar, { ...node('tab', 'Inbox', { x: 0, y: 710, width: 133, height: 60 }), index: 1, parent: 0 }];
    expect(silentContainers([bar], SCREEN, g).map((n) => n.role)).toEqual(['tabbar']);
    expect(silentContainers(withChild, SCREEN, g)).toEqual([]);
    expect(silentContainers([bar], SCREEN, grid())).toEqual([]); // blank: nothing to find
  });
});
