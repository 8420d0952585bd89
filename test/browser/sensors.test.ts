// When the tree lies, on real Chromium and the sample app. The pixel tier: where the tree leaves visible parts of the
// screen unexplained (a canvas, a screen that is all canvas), text is read from pixels, marked ~
// with source ocr and a confidence; icons nobody named stay unnamed with their boxes; and a target
// that only pixels could answer is never stretched: "Back" does not become a lone "B". Hit-test
// probing: a tab bar whose buttons are hidden from the tree is recovered, with the probes counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { webFarm } from '../helpers/web-device.js';

let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;
let id: string;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'pixels');
  id = await settledSession(agent);
}, 90_000);
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

interface El {
  ref: number | null;
  role: string;
  label: string;
  source: string;
  labelFrom?: string;
  confidence?: number;
  flags: string[];
  frame: { x: number; y: number; width: number; height: number };
  id: string | null;
}

let loads = 0;
async function openScreen(route: string): Promise<{
  text: string;
  elements: El[];
  read: { ocr?: { areas: number; lines: number; ms: number }; probe?: { containers: number; probes: number; found: number } };
}> {
  // A new query makes it a load (a hash alone would not): each screen starts from a fresh page.
  const opened = await agent.call('runAction', { params: { sessionId: id }, body: { action: 'open', url: `${provider.sampleUrl}?load=${++loads}#/${route}` } });
  expect(opened.status, opened.text).toBe(200);
  await agent.call('waitForScreen', { params: { sessionId: id }, body: { for: 'settled', timeoutMs: 5000, changeTimeoutMs: 300 } });
  const screen = await readToTheEnd(route);
  if (process.env.SIMFLEET_TEST_DEBUG) console.log(route, screen.text, JSON.stringify(screen.read));
  return screen;
}

/**
 * The screen as JSON, read the way an agent is told to. Under load, text recognition may stop at its
 * budget and say so ("text recognition stopped at its time budget … read again to go on"), and each
 * read goes on where the last stopped; or the screen may still be moving when it is read (a busy
 * machine delays frames past the settle wait), and the read says that pixels were not looked at
 * ("the screen was still moving … read again once it settles"): the agent waits for it to settle and
 * reads again.
 */
async function readToTheEnd(what: string) {
  const read = async () => (await agent.call('getScreen', { params: { sessionId: id }, headers: { accept: 'application/json' } })).body;
  let screen = await read();
  for (let again = 0; again < 5; again++) {
    if (screen.read.ocr?.moving || screen.read.probe?.moving) {
      expect(screen.text).toContain('read again once it settles');
      console.log(`${what}: the screen was still moving when read; waiting for it to settle and reading again`);
      await agent.call('waitForScreen', { params: { sessionId: id }, body: { for: 'settled', timeoutMs: 10_000, changeTimeoutMs: 300 } });
    } else if (screen.read.ocr?.unread) {
      expect(screen.text).toContain('read again to go on');
      console.log(`${what}: text recognition stopped at its budget (${screen.read.ocr.unread} of ${screen.read.ocr.areas} areas unread); reading again`);
    } else break;
    screen = await read();
  }
  return screen;
}

describe('the pixel tier', () => {
  it('costs nothing where the tree explains the screen: no text is read from pixels there', async () => {
    for (const route of ['inbox', 'inbox/3', 'search', 'settings', 'settings/form', 'settings/icons', 'settings/wizard']) {
      const screen = await openScreen(route);
      expect(screen.read.ocr ?? null, `${route}: ${JSON.stringify(screen.read.ocr)}`).toBeNull();
      expect(screen.read.probe ?? null, `${route}: ${JSON.stringify(screen.read.probe)}`).toBeNull();
    }
  });

  it('reads what a canvas draws: ~ lines with source ocr and a confidence, beside what the tree says', async () => {
    const screen = await openScreen('settings/canvas');
    expect(screen.read.ocr?.lines).toBeGreaterThanOrEqual(2);
    const fromPixels = screen.elements.filter((e) => e.source === 'ocr');
    const labels = fromPixels.map((e) => e.label);
    expect(labels).toContain('Score 120');
    expect(labels).toContain('PLAY');
    for (const e of fromPixels) {
      expect(e.labelFrom).toBe('ocr');
      expect(e.confidence).toBeGreaterThan(0.6);
    }
    // The text sits where it is drawn: PLAY inside the blue button drawn at 110..230 × 200..248 of
    // the canvas (CSS px = points), which is centred below the paragraph.
    const play = fromPixels.find((e) => e.label === 'PLAY')!;
    expect(play.frame.width).toBeGreaterThan(30);
    expect(play.frame.width).toBeLessThan(120);
    expect(screen.text).toMatch(/text [\d.]+,[\d.]+ ~"PLAY"/);
    expect(screen.text).toContain('~ text read from pixels');
    // The tree's own words stand, and are not marked.
    expect(screen.elements.find((e) => e.label.startsWith('Everything in the box'))).toMatchObject({ source: 'web' });
    expect(screen.elements.some((e) => e.label === 'Canvas' && e.source === 'web')).toBe(true);
  });

  it('leaves icons nobody named unnamed, with their boxes, and reads nothing into them', async () => {
    const screen = await openScreen('settings/icons');
    const unnamed = screen.elements.filter((e) => e.flags.includes('unnamed'));
    expect(unnamed.map((e) => e.id)).toEqual(['unnamed-bell', 'unnamed-pin', 'unnamed-reply', 'unnamed-more']);
    for (const e of unnamed) {
      expect(e.label).toBe('');
      expect(e.frame.width).toBeGreaterThan(20);
      expect(e.frame.height).toBeGreaterThan(20);
    }
    expect(screen.text).toMatch(/button [\d.]+,[\d.]+ #unnamed-bell unnamed/);
  });

  it('on a screen that is all canvas, reads its words, and refuses "Back" rather than tap a lone "B"', async () => {
    const screen = await openScreen('settings/arcade');
    const labels = screen.elements.filter((e) => e.source === 'ocr').map((e) => e.label);
    expect(labels).toEqual(expect.arrayContaining(['B', 'Level 3', 'Lives 2', 'START']));
    const tap = await agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target: 'Back' } });
    expect(tap.status).toBe(422);
    expect(tap.body.error.code).toBe('NO_MATCH');
    // A word read from pixels answers only when it is the word asked for, and says how it was found.
    let located = await agent.call('locateElement', { params: { sessionId: id }, body: { target: 'START' } });
    // A read that stopped at its budget says so in the refusal, and asking again goes on from there.
    for (let again = 0; located.body.error?.details?.ocrUnread && again < 5; again++)
      located = await agent.call('locateElement', { params: { sessionId: id }, body: { target: 'START' } });
    expect(located.status, located.text).toBe(200);
    expect(located.body).toMatchObject({ how: 'ocr', element: { label: 'START', source: 'ocr' } });
    const near = await agent.call('locateElement', { params: { sessionId: id }, body: { target: 'STAR' } });
    expect(near.body.error?.code).toBe('NO_MATCH');
  });
});

describe('a tree the pixels contradict', () => {
  it('reads the whole screen when most labelled elements sit where nothing is drawn, and says why', async () => {
    const opened = await agent.call('runAction', {
      params: { sessionId: id },
      body: { action: 'open', url: `${provider.sampleUrl}?ghost-text=1&load=${++loads}#/settings/notifications` },
    });
    expect(opened.status, opened.text).toBe(200);
    await agent.call('waitForScreen', { params: { sessionId: id }, body: { for: 'settled', timeoutMs: 5000, changeTimeoutMs: 300 } });
    const screen = await readToTheEnd('ghost text');
    expect(screen.read.ocr).toMatchObject({ why: 'contradicted', areas: 1 });
    expect(screen.text).toContain('the tree does not match the pixels');
    // Nothing the tree claims is read into the outline from pixels that show nothing.
    const fromPixels = screen.elements.filter((e: El) => e.source === 'ocr' || e.labelFrom === 'ocr').map((e: El) => e.label);
    expect(fromPixels.join(' ')).not.toMatch(/Allow|Sounds|Badges/);
  });
});

describe('hit-test probing', () => {
  it('recovers a tab bar whose buttons the tree does not report, says how many probes it spent, and taps what it found', async () => {
    // A screen this test file has not shown before: one it has is answered from memory (the pixels
    // agree with the remembered reading, tabs and all) without reading the tree at all.
    const opened = await agent.call('runAction', {
      params: { sessionId: id },
      body: { action: 'open', url: `${provider.sampleUrl}?hide-tab-a11y=1&load=${++loads}#/settings/privacy` },
    });
    expect(opened.status, opened.text).toBe(200);
    await agent.call('waitForScreen', { params: { sessionId: id }, body: { for: 'settled', timeoutMs: 5000, changeTimeoutMs: 300 } });
    const screen = await readToTheEnd('hidden tabs');
    const tabs = screen.elements.filter((e: El) => e.flags.includes('probed'));
    expect(tabs.map((e: El) => [e.role, e.label])).toEqual([
      ['tab', 'Inbox'],
      ['tab', 'Search'],
      ['tab', 'Settings'],
    ]);
    expect(screen.read.probe).toMatchObject({ containers: 1, found: 3 });
    expect(screen.read.probe.probes).toBeGreaterThanOrEqual(3);
    expect(screen.read.probe.probes).toBeLessThanOrEqual(16);
    expect(screen.text).toMatch(/tab [\d.]+,[\d.]+ "Settings" #tab-settings probed/);
    const tap = await agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target: 'Search', role: 'tab' } });
    expect(tap.status, tap.text).toBe(200);
    expect(tap.body.screen.name).toBe('Search');
    expect(tap.body.target).toMatchObject({ label: 'Search', flags: ['probed'] });
  });
});
