/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The web device against real Chromium (Debian's /usr/bin/chromium, driven over the DevTools
// protocol) and the sample app: damage-driven frames, the accessibility tree against the DOM,
// real touch input, reset, crash recovery and the origin policy.
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { DeviceBackend, Frame, TreeNode, TreeSnapshot } from '../../workers/devices/backend.js';
import * as g from '../../workers/devices/gestures.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { analyse, GRID_W, gridHeight } from '../../workers/perception/analysis.js';
import { grayGrid } from '../../workers/perception/image.js';
import { significantChange } from '../../workers/perception/settle.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;
let sample: string;
let changes = 0;

beforeAll(async () => {
  ({ provider, device, sample } = await webDevice({ beforeStart: (p) => p.onChange(() => changes++) }));
});
afterAll(() => provider?.close());

const page = () => device.currentPageForTests;

let loads = 0;
/** Opens a sample screen by deep link (a real load, fresh state) and waits for it to be there. */
async function show(route: string): Promise<void> {
  await device.open(`${sample}?load=${++loads}#/${route}`);
  await page().waitForSelector(`.screen[data-route="${route}"]:not([hidden])`, { timeout: 5000 });
  if (route === 'inbox') await page().waitForSelector('[data-testid="message-1"]');
  await sleep(300);
}

/** A frame as the eyes analyse it (on the iPhone profile's 393x852 pt screen). */
async function gridOf(f: Frame) {
  return analyse(await grayGrid(f, GRID_W, gridHeight(393, 852)), { seq: 1, at: f.receivedAt, wallAt: Date.now(), widthPt: 393, heightPt: 852 });
}

function countFrames(d: DeviceBackend, ms: number): Promise<number> {
  let n = 0;
  const off = d.onFrame(() => n++);
  return sleep(ms).then(() => {
    off();
    return n;
  });
}

const centre = (n: TreeNode) => ({ x: n.frame.x + n.frame.width / 2, y: n.frame.y + n.frame.height / 2 });
async function find(pred: (n: TreeNode) => boolean, what: string): Promise<TreeNode> {
  const node = (await device.tree()).nodes.find(pred);
  if (!node) throw new Error(`no ${what} in the tree`);
  return node;
}
const contentScrollTop = () => page().evaluate(() => (document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement).scrollTop);

describe('frames', () => {
  it('come only when the page repaints: none from an idle screen over 2 s, a steady stream from a spinner', async () => {
    await show('settings');
    await sleep(500);
    expect(await countFrames(device, 2000)).toBe(0);
    await show('settings/loading');
    const spinning = await countFrames(device, 1000);
    // A stream, not a frame or two; its rate is a figure for `npm run bench -- web`.
    expect(spinning).toBeGreaterThanOrEqual(5);
  });

  // How soon is a figure for `npm run bench -- web` (goal < 100 ms); under a loaded test run only
  // that a frame follows is asserted.
  it('follow a tap that changes the screen, with no polling', async () => {
    await show('settings');
    await sleep(500);
    const wifi = await find((n) => n.role === 'switch' && n.label === 'Wi-Fi', 'Wi-Fi switch');
    let first = 0;
    let tapped = 0;
    const off = device.onFrame((f) => {
      if (tapped && !first) first = f.receivedAt - tapped;
    });
    const frames = g.tap(centre(wifi));
    await device.touch(frames);
    tapped = performance.now();
    await waitFor('a frame', () => first || undefined, 2000);
    off();
    expect(first).toBeGreaterThan(0);
  });

  // Chromium repaints the page at a capture's density while the capture lasts, and its screencast
  // sent that paint as a frame: a magnified corner, which the eyes took for motion over the whole
  // screen (a form's submit "had not settled" for 26 s in CI, an OCR read after every settle).
  it('leave out the repaint of a capture at another density: every frame sent while an idle screen is captured at 2 and 3 px/pt shows that screen', async () => {
    await show('settings');
    await sleep(500);
    const dropped = device.capturePaintsDropped;
    const frames: Frame[] = [];
    const off = device.onFrame((f) => frames.push(f));
    for (let i = 0; i < 10; i++) {
      await device.screenshot({ scale: i % 2 ? 3 : 2 });
      await sleep(150);
    }
    await sleep(500);
    off();
    const still = await gridOf(await device.probe());
    const unlike: number[] = [];
    for (const f of frames) if (significantChange(still, await gridOf(f), []).changed) unlike.push(f.width);
    console.log(
      `captures at 2 and 3 px/pt: ${frames.length} frames sent (a repaint each), ${unlike.length} unlike the screen; ${device.capturePaintsDropped - dropped} capture paints dropped`,
    );
    expect(unlike).toEqual([]);
  });

  it('are captured one at a time: a probe sent beside a 2 px/pt capture still comes back at one pixel per point', async () => {
    await show('settings');
    for (let i = 0; i < 8; i++) {
      const [shot, probe] = await Promise.all([device.screenshot({ scale: 2 }), device.probe()]);
      expect([shot.width, probe.width, probe.height, probe.pixelsPerPoint]).toEqual([786, 393, 852, 1]);
    }
  });

  it('are not taken when their caller stopped waiting before their turn came; the ones after them still are', async () => {
    await show('settings');
    const givenUp = new AbortController();
    const before = device.capturesGivenUp;
    const first = device.screenshot({ scale: 3 });
    const abandoned = device.screenshot({ scale: 2, signal: givenUp.signal });
    const probeAbandoned = device.probe(givenUp.signal);
    const after = device.probe();
    givenUp.abort(); // while the first capture still holds the queue
    await expect(abandoned).rejects.toMatchObject({ code: 'DEVICE_FAILED', message: expect.stringContaining('given up before its turn') });
    await expect(probeAbandoned).rejects.toMatchObject({ code: 'DEVICE_FAILED' });
    expect((await first).width).toBe(1179);
    expect((await after).width).toBe(393);
    expect(device.capturesGivenUp - before).toBe(2);
  });

  it('are JPEGs at one pixel per point', async () => {
    await show('settings/loading');
    const frame = await new Promise<Parameters<Parameters<DeviceBackend['onFrame']>[0]>[0]>((resolve) => {
      const off = device.onFrame((f) => {
        off();
        resolve(f);
      });
    });
    expect(frame.format).toBe('jpeg');
    expect(frame.data.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect([frame.width, frame.height]).toEqual([393, 852]);
    expect(frame.pixelsPerPoint).toBe(1);
  });
});

describe('the accessibility tree', () => {
  const EXPECTED: Record<string, [string, string][]> = {
    inbox: [
      ['heading', 'Inbox'],
      ['button', 'Compose'],
      ['tab', 'Inbox'],
      ['tab', 'Search'],
      ['tab', 'Settings'],
      ['list', 'Messages'],
    ],
    'inbox/3': [
      ['heading', 'Message'],
      ['button', 'Back to Inbox'],
      ['button', 'Reply'],
      ['button', 'Delete'],
      ['button', 'More actions'],
    ],
    search: [
      ['heading', 'Search'],
      ['textfield', 'Search messages'],
    ],
    settings: [
      ['heading', 'Settings'],
      ['switch', 'Wi-Fi'],
      ['switch', 'Bluetooth'],
      ['switch', 'Airplane mode'],
      ['radio', 'Small'],
      ['radio', 'Medium'],
      ['radio', 'Large'],
      ['button', 'Date'],
      ['button', 'Sender'],
      ['button', 'Subject'],
      ['slider', 'Volume'],
      ['button', 'Notifications'],
      ['button', 'Privacy'],
    ],
    'settings/notifications': [
      ['heading', 'Notifications'],
      ['switch', 'Allow'],
      ['switch', 'Sounds'],
      ['switch', 'Badges'],
    ],
    'settings/privacy': [
      ['heading', 'Privacy'],
      ['switch', 'Allow'],
      ['switch', 'Sounds'],
      ['switch', 'Badges'],
    ],
    'settings/form': [
      ['heading', 'Long form'],
      ['textfield', 'Full name'],
      ['textfield', 'Email'],
      ['textfield', 'Age'],
      ['select', 'Country'],
      ['checkbox', 'I agree to the terms'],
      ['button', 'Submit'],
    ],
    'settings/form/submitted': [
      ['heading', 'Submitted'],
      ['term', 'Full name'],
      ['text', 'Ada Lovelace'],
      ['text', 'ada@example.test'],
    ],
    'settings/wizard': [
      ['heading', 'Sign up'],
      ['textfield', 'Name'],
      ['textfield', 'Email'],
      ['button', 'Next'],
    ],
    'settings/wizard/2': [
      ['heading', 'Plan'],
      ['radio', 'Free'],
      ['radio', 'Pro'],
      ['radio', 'Team'],
      ['button', 'Next'],
    ],
    'settings/wizard/3': [
      ['heading', 'Sign up'],
      ['textfield', 'Name'],
      ['textfield', 'Email'],
      ['button', 'Submit'],
    ],
    'settings/wizard/done': [
      ['heading', 'Welcome'],
      ['heading', 'Thank you'],
      ['status', ''],
    ],
    'settings/icons': [
      ['button', 'Share'],
      ['button', 'Favourite'],
      ['button', 'Archive'],
      ['button', 'Delete'],
    ],
    'settings/canvas': [['heading', 'Canvas']],
    'settings/photo': [
      ['heading', 'Photo'],
      ['image', 'Photo'],
    ],
    'settings/loading': [
      ['heading', 'Loading'],
      ['status', ''],
    ],
    'settings/arcade': [['heading', 'Arcade']],
  };

  // Nodes the page gave no id are held to the element found by their text (a field by its label).
  const WITHOUT_ID: Record<string, [role: string, label: string, element: (p: Page) => Locator][]> = {
    'inbox/3': [['heading', 'Build #4711 passed', (p) => p.getByText('Build #4711 passed', { exact: true })]],
    'settings/form/submitted': [
      ['heading', 'Submitted', (p) => p.locator('.content').getByText('Submitted', { exact: true })],
      ['term', 'Full name', (p) => p.getByText('Full name', { exact: true })],
    ],
    'settings/wizard/2': [['button', 'Next', (p) => p.getByText('Next', { exact: true })]],
    'settings/wizard/3': [
      ['textfield', 'Name', (p) => p.getByLabel('Name', { exact: true })],
      ['textfield', 'Email', (p) => p.getByLabel('Email', { exact: true })],
    ],
    'settings/wizard/done': [['heading', 'Thank you', (p) => p.getByText('Thank you', { exact: true })]],
  };

  // A deep link to the form's answer shows an empty one: it is reached by submitting, as a user does.
  const REACHED_BY: Record<string, () => Promise<void>> = {
    'settings/form/submitted': async () => {
      await show('settings/form');
      await page().fill('[data-testid="field-name"]', 'Ada Lovelace');
      await page().fill('[data-testid="field-email"]', 'ada@example.test');
      await page()
        .locator('form')
        .evaluate((f) => (f as HTMLFormElement).requestSubmit());
      await page().waitForSelector('.screen[data-route="settings/form/submitted"]:not([hidden])', { timeout: 5000 });
      await sleep(500); // the push animation
    },
  };

  it.each(Object.keys(EXPECTED))('on #/%s names its elements and puts them where the DOM has them (within 1 pt)', async (route) => {
    await (REACHED_BY[route] ?? show)(route);
    const tree = await device.tree();
    for (const [role, label] of EXPECTED[route]!) {
      expect(
        tree.nodes.some((n) => n.role === role && n.label === label),
        `${role} "${label}" in ${route}`,
      ).toBe(true);
    }
    // Screens further down the stack are still in the DOM, hidden: only boxes that render count.
    const boxes = await page().evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('[data-testid], [id]')]
          .map((el) => [(el as HTMLElement).dataset.testid ?? el.id, el.getBoundingClientRect()] as const)
          .filter(([, r]) => r.width > 0 && r.height > 0)
          .map(([key, r]) => [key, { x: r.x, y: r.y, width: r.width, height: r.height }]),
      ),
    );
    const withIds = tree.nodes.filter((n) => n.id && boxes[n.id]);
    expect(withIds.length).toBeGreaterThan(2);
    for (const n of withIds) {
      const b = boxes[n.id!]!;
      for (const k of ['x', 'y', 'width', 'height'] as const)
        expect(Math.abs(n.frame[k] - b[k]), `${n.id}.${k}: tree ${n.frame[k]}, DOM ${b[k]}`).toBeLessThanOrEqual(1);
    }
    for (const [role, label, element] of WITHOUT_ID[route] ?? []) {
      const n = tree.nodes.find((x) => x.role === role && x.label === label && !x.id);
      expect(n, `${role} "${label}" without an id in ${route}`).toBeDefined();
      // One visible element (the locator is strict), a screen down the stack being hidden.
      const b = (await element(page()).filter({ visible: true }).boundingBox())!;
      for (const k of ['x', 'y', 'width', 'height'] as const)
        expect(Math.abs(n!.frame[k] - b[k]), `${role} "${label}".${k}: tree ${n!.frame[k]}, DOM ${b[k]}`).toBeLessThanOrEqual(1);
    }
  });

  // The overlays are screens too: a sheet and an alert over a message, opened by tapping.
  it.each([
    [
      'the compose sheet',
      'Reply',
      [
        ['dialog', 'New message'],
        ['button', 'Cancel'],
        ['button', 'Send'],
        ['textfield', 'To'],
        ['textfield', 'Subject'],
        ['textfield', 'Message'],
      ],
    ],
    [
      'the delete alert',
      'Delete',
      [
        ['alert', 'Delete message?'],
        ['button', 'Cancel'],
        ['button', 'Delete'],
      ],
    ],
  ] as const)('names the elements of %s and puts them where the DOM has them (within 1 pt)', async (_what, opener, expected) => {
    await show('inbox/3');
    // The message's own button, below the navigation bar (whose icon "Reply" the title's box partly covers).
    const buttons = (await device.tree()).nodes.filter((n) => n.role === 'button' && n.label === opener && n.frame.y > 100);
    expect(buttons.length, `a "${opener}" button below the navigation bar`).toBe(1);
    await device.touch(g.tap(centre(buttons[0]!)));
    await page().waitForSelector('.sheet, .alert', { timeout: 5000 });
    await sleep(500); // the overlay's animation
    const tree = await device.tree();
    for (const [role, label] of expected)
      expect(
        tree.nodes.some((n) => n.role === role && n.label === label),
        `${role} "${label}"`,
      ).toBe(true);
    const boxes = await page().evaluate(() =>
      [...document.querySelectorAll('button, input, textarea')].map((el) => ({
        r: el.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number },
      })),
    );
    const controls = tree.nodes.filter((n) => ['button', 'textfield'].includes(n.role) && expected.some(([, l]) => l === n.label) && n.frame.width > 0);
    expect(controls.length).toBeGreaterThanOrEqual(2);
    for (const n of controls) {
      const near = boxes.some(({ r }) => (['x', 'y', 'width', 'height'] as const).every((k) => Math.abs(n.frame[k] - r[k]) <= 1));
      expect(near, `${n.role} "${n.label}" at ${JSON.stringify(n.frame)} matches a DOM box`).toBe(true);
    }
    await device.back(); // closes the overlay first, as hardware back does
    await page()
      .waitForSelector('.sheet, .alert', { state: 'detached', timeout: 5000 })
      .catch(() => undefined);
  });

  it('has nothing of what a canvas draws: the pixels are all there is', async () => {
    await show('settings/canvas');
    const labels = (await device.tree()).nodes.map((n) => n.label);
    expect(labels.some((l) => /PLAY|Score/.test(l))).toBe(false);
  });

  it('keeps icon buttons without names, flagged unnamed', async () => {
    await show('settings/icons');
    const buttons = (await device.tree()).nodes.filter((n) => n.role === 'button' && n.frame.y > 52);
    expect(buttons.filter((b) => !b.unnamed).map((b) => b.label)).toEqual(['Share', 'Favourite', 'Archive', 'Delete']);
    expect(buttons.filter((b) => b.unnamed).map((b) => b.id)).toEqual(['unnamed-bell', 'unnamed-pin', 'unnamed-reply', 'unnamed-more']);
  });

  it('reads states: a switch is checked, a radio selected, a text field has its value', async () => {
    await show('settings');
    const tree = await device.tree();
    expect(tree.nodes.find((n) => n.label === 'Wi-Fi' && n.role === 'switch')!.states.checked).toBe(true);
    expect(tree.nodes.find((n) => n.label === 'Bluetooth' && n.role === 'switch')!.states.checked).toBe(false);
    expect(tree.nodes.find((n) => n.label === 'Medium' && n.role === 'radio')!.states.checked).toBe(true);
    expect(tree.nodes.find((n) => n.label === 'Volume')!.value).toBe('60');
  });

  it('reads the other states: selected, disabled, focused, expanded', async () => {
    await page().setContent(`<html><head><meta name="viewport" content="width=device-width,initial-scale=1"></head><body>
      <div role="tablist"><button role="tab" aria-selected="true">First</button><button role="tab" aria-selected="false">Second</button></div>
      <button disabled>Unavailable</button><button>Available</button>
      <input id="field" aria-label="Field"><button aria-expanded="true">Open menu</button><button aria-expanded="false">Closed menu</button></body></html>`);
    await page().focus('#field');
    await sleep(300);
    const nodes = (await device.tree()).nodes;
    const node = (label: string) => nodes.find((n) => n.label === label)!;
    expect(node('First').states.selected).toBe(true);
    expect(node('Second').states.selected).toBeFalsy();
    expect(node('Unavailable').states.disabled).toBe(true);
    expect(node('Available').states.disabled).toBeFalsy();
    expect(node('Field').states.focused).toBe(true);
    expect(node('Open menu').states.expanded).toBe(true);
    expect(node('Closed menu').states.expanded).toBe(false);
    expect(nodes.every((n) => n.source === 'web')).toBe(true);
  });

  it('marks a row half under the tab bar as on screen, and rows below the fold as offscreen', async () => {
    await show('inbox');
    const tree = await device.tree();
    const row9 = tree.nodes.find((n) => n.id === 'message-9')!;
    const tabbar = tree.nodes.find((n) => n.role === 'tabbar')!;
    expect(row9.frame.y).toBeLessThan(tabbar.frame.y);
    expect(row9.frame.y + row9.frame.height).toBeGreaterThan(tabbar.frame.y);
    expect(row9.offscreen).toBe(false);
    expect(tree.nodes.find((n) => n.id === 'message-15')!.offscreen).toBe(true);
  });

  it('pages the inbox: 20 rows, a loading row while the next 20 come, and after all 200 an end marker', async () => {
    await show('inbox');
    const rows = (t: TreeSnapshot) => t.nodes.filter((n) => /^message-\d+$/.test(n.id ?? '')).length;
    const says = (t: TreeSnapshot, text: string) => t.nodes.some((n) => n.role === 'text' && n.label === text);
    // The app pages on its content's scroll events; which input scrolled is another test's business.
    // Resolves once the app has seen the scroll (its listener runs before this one).
    const scrollToEnd = () =>
      page().evaluate(
        () =>
          new Promise<void>((resolve) => {
            const content = document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement;
            content.addEventListener('scroll', () => resolve(), { once: true });
            content.scrollTop = content.scrollHeight;
          }),
      );
    const first = await device.tree();
    expect(rows(first)).toBe(20);
    expect(says(first, 'Loading messages…')).toBe(false);
    expect(says(first, 'No more messages')).toBe(false);

    // The next page takes 600 ms to come: the loading row shows under the first 20 meanwhile.
    await scrollToEnd();
    const loading = await device.tree();
    expect([rows(loading), says(loading, 'Loading messages…')]).toEqual([20, true]);
    await waitFor('the second page', async () => rows(await device.tree()) === 40 || undefined, 5000);
    expect(says(await device.tree(), 'Loading messages…')).toBe(false);

    const inDom = () => page().locator('.screen[data-route="inbox"] .row').count();
    for (let n = 40; n < 200; n += 20) {
      await scrollToEnd();
      await waitFor(`page ${n / 20 + 1}`, async () => (await inDom()) === n + 20 || undefined, 5000);
    }
    await scrollToEnd(); // past the last row: nothing more to load
    const end = await device.tree();
    expect(rows(end)).toBe(200);
    expect(end.nodes.find((n) => n.id === 'message-200')).toBeDefined();
    expect(says(end, 'No more messages')).toBe(true);
    expect(says(end, 'Loading messages…')).toBe(false);
  });

  it('includes open shadow roots and same-origin frames, and skips (and counts) what is invisible', async () => {
    await page().setContent(`<html><head><meta name="viewport" content="width=device-width,initial-scale=1"></head><body style="margin:0">
      <button id="plain" style="position:absolute;left:10px;top:10px;width:100px;height:40px">Plain</button>
      <div id="host" style="position:absolute;left:10px;top:60px"></div>
      <iframe style="position:absolute;left:10px;top:120px;width:300px;height:80px;border:0" srcdoc="<body style='margin:0'><button id='inner' style='margin:5px;width:90px;height:30px'>Inner</button></body>"></iframe>
      <button style="display:none">Gone</button><button style="visibility:hidden">Hidden</button>
      <div style="opacity:0"><button>Transparent</button></div><button style="width:0;height:0;padding:0;border:0;overflow:hidden">Zero</button>
      <script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<button style="width:80px;height:30px">Shadow</button>'</script></body></html>`);
    await sleep(300);
    const tree = await device.tree();
    const labels = tree.nodes.filter((n) => n.role === 'button').map((n) => n.label);
    expect(labels).toEqual(expect.arrayContaining(['Plain', 'Shadow', 'Inner']));
    for (const gone of ['Gone', 'Hidden', 'Transparent', 'Zero']) expect(labels).not.toContain(gone);
    expect(tree.skippedInvisible).toBeGreaterThanOrEqual(3); // display:none leaves no AX node at all
    expect(tree.nodes.find((n) => n.label === 'Shadow')!.frame).toMatchObject({ x: 10, y: 60, width: 80, height: 30 });
    expect(tree.nodes.find((n) => n.label === 'Inner')!.frame).toMatchObject({ x: 15, y: 125, width: 90, height: 30 });
  });

  it('converts a page laid out wider than the screen (no viewport meta) into screen points', async () => {
    await page().goto('about:blank');
    await page().setContent(
      `<html><body style="margin:0;height:3000px"><button id="b" style="position:absolute;left:100px;top:500px;width:200px;height:100px">Wide</button></body></html>`,
    );
    await page().evaluate(() => window.scrollTo(0, 200));
    await sleep(300);
    const scale = await page().evaluate(() => visualViewport!.scale);
    expect(scale).toBeLessThan(0.5); // laid out at 980 px and scaled to 393 pt
    const n = (await device.tree()).nodes.find((x) => x.label === 'Wide')!;
    expect(n.frame.x).toBeCloseTo(100 * scale, 0);
    expect(n.frame.y).toBeCloseTo(300 * scale, 0);
    expect(n.frame.width).toBeCloseTo(200 * scale, 0);
    // and a tap at that point in screen points lands on it
    await page().evaluate(() =>
      document.getElementById('b')!.addEventListener('click', () => ((document.getElementById('b') as HTMLButtonElement).textContent = 'Tapped')),
    );
    await device.touch(g.tap(centre(n)));
    await waitFor('tapped', async () => (await page().textContent('#b')) === 'Tapped' || undefined, 2000);
  });
});

describe('touch input', () => {
  it('activates what a tap at its centre hits: a link cell navigates, a switch toggles', async () => {
    await show('settings');
    const link = await find((n) => n.label === 'Notifications' && n.role === 'button', 'Notifications link');
    await device.touch(g.tap(centre(link)));
    await page().waitForSelector('.screen[data-route="settings/notifications"]');
    const allow = await find((n) => n.role === 'switch' && n.label === 'Allow', 'Allow switch');
    expect(allow.states.checked).toBe(true);
    await sleep(400); // the push animation
    await device.touch(g.tap(centre(await find((n) => n.role === 'switch' && n.label === 'Allow', 'Allow switch'))));
    await waitFor('toggled', async () => (await find((n) => n.role === 'switch' && n.label === 'Allow', 'Allow')).states.checked === false || undefined, 2000);
  });

  it('scrolls the inbox exactly as far as a drag says (300 ± 5 pt), without a fling', async () => {
    await show('inbox');
    const before = await contentScrollTop();
    await device.touch(g.drag({ x: 200, y: 650 }, { x: 200, y: 350 }, { slopPt: device.touchSlopPt }));
    await sleep(800); // a fling would still be moving
    const moved = (await contentScrollTop()) - before;
    expect(Math.abs(moved - 300)).toBeLessThanOrEqual(5);
    const plainBefore = await contentScrollTop();
    await device.touch(g.drag({ x: 200, y: 650 }, { x: 200, y: 500 }));
    await sleep(800);
    // Without the slop added, the platform keeps the first touchSlopPt for itself.
    expect(Math.abs((await contentScrollTop()) - plainBefore - (150 - device.touchSlopPt))).toBeLessThanOrEqual(5);
  });

  it('swipes for as long as it is told, and the list scrolls at least the distance', async () => {
    await show('inbox');
    const before = await contentScrollTop();
    const started = performance.now();
    await device.touch(g.swipe({ x: 200, y: 650 }, { x: 200, y: 400 }, 400));
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    await sleep(800);
    expect((await contentScrollTop()) - before).toBeGreaterThanOrEqual(250 - device.touchSlopPt - 15);
  });

  it('pinches a zoomable photo larger and turns it with two fingers along an arc', async () => {
    await show('settings/photo');
    const photo = await find((n) => n.role === 'image' && n.label === 'Photo', 'photo');
    await device.touch(g.pinch(centre(photo), 2));
    await sleep(200);
    const scale = Number(await page().getAttribute('[data-testid="photo"]', 'data-scale'));
    expect(scale).toBeGreaterThan(1.7);
    await device.touch(g.rotate(centre(photo), 90));
    await sleep(200);
    const rotation = Number(await page().getAttribute('[data-testid="photo"]', 'data-rotation'));
    expect(Math.abs(rotation - 90)).toBeLessThan(10);
    // Along an arc the finger distance holds, so the rotate did not rescale the photo.
    expect(Math.abs(Number(await page().getAttribute('[data-testid="photo"]', 'data-scale')) - scale)).toBeLessThan(0.1);
  });

  it('double-taps (the photo resets its zoom) and long-presses (a row shows its options, it does not open)', async () => {
    await show('settings/photo');
    const photo = await find((n) => n.role === 'image' && n.label === 'Photo', 'photo');
    await device.touch(g.pinch(centre(photo), 1.8));
    await sleep(200);
    expect(Number(await page().getAttribute('[data-testid="photo"]', 'data-scale'))).toBeGreaterThan(1.5);
    await device.touch(g.doubleTap(centre(photo)));
    await waitFor('zoom reset', async () => (await page().getAttribute('[data-testid="photo"]', 'data-scale')) === '1' || undefined, 2000);

    await show('inbox');
    await device.touch(g.longPress(centre(await find((n) => n.id === 'message-2', 'row 2')), 800));
    await waitFor('options toast', async () => ((await page().textContent('#toast')) ?? '').startsWith('Options for') || undefined, 2000);
    expect(await page().evaluate(() => location.hash)).toBe('#/inbox');
  });

  it('types into the focused field and presses keys', async () => {
    await show('search');
    await device.touch(g.tap(centre(await find((n) => n.role === 'textfield', 'search field'))));
    await device.type('Payment');
    await waitFor(
      'results',
      async () => (await device.tree()).nodes.some((n) => n.role === 'button' && n.label.includes('Payment received')) || undefined,
      2000,
    );
    await device.key('Backspace');
    expect(await page().inputValue('[data-testid="search-field"]')).toBe('Paymen');
  });

  it('reloads the page: what the page held in memory is gone, the address stays', async () => {
    await show('settings');
    const url = page().url();
    await page().evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await device.reload();
    await page().waitForSelector('.screen[data-route="settings"]:not([hidden])', { timeout: 5000 });
    expect(page().url()).toBe(url);
    expect(await page().evaluate(() => (window as unknown as { marker?: number }).marker)).toBeUndefined();
  });

  it('goes back (hardware back) from a pushed screen', async () => {
    await show('inbox');
    await device.touch(g.tap(centre(await find((n) => n.id === 'message-2', 'row 2'))));
    await page().waitForSelector('.screen[data-route="inbox/2"]');
    await device.back();
    await waitFor('popped', async () => (await page().evaluate(() => location.hash)) === '#/inbox' || undefined, 2000);
  });
});

describe('lifecycle', () => {
  it('takes a full-resolution screenshot in device pixels', async () => {
    await show('settings');
    const shot = await device.screenshot();
    expect(shot.png.subarray(1, 4).toString()).toBe('PNG');
    expect([shot.png.readUInt32BE(16), shot.png.readUInt32BE(20)]).toEqual([1179, 2556]);
    expect(shot.scale).toBe(3);
  });

  it('takes a screenshot at fewer pixels per point when asked, and never at more than the device has', async () => {
    await show('settings');
    const two = await device.screenshot({ scale: 2 });
    expect([two.png.readUInt32BE(16), two.png.readUInt32BE(20), two.width, two.scale]).toEqual([786, 1704, 786, 2]);
    const capped = await device.screenshot({ scale: 5 });
    expect([capped.width, capped.height, capped.scale]).toEqual([1179, 2556, 3]);
  });

  it('takes a screenshot without touching the page it shows (no style slipped in to hide the caret)', async () => {
    await show('search');
    await page().focus('#search-field'); // a caret on screen: what Playwright's screenshot restyles to hide
    await page().evaluate(() => {
      const w = window as unknown as { mutations: number };
      w.mutations = 0;
      new MutationObserver((records) => (w.mutations += records.length)).observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
    const shot = await device.screenshot();
    expect(shot.width).toBe(1179);
    await sleep(100);
    expect(await page().evaluate(() => (window as unknown as { mutations: number }).mutations)).toBe(0);
  });

  it('resets to a fresh context: no cookie or localStorage survives', async () => {
    await show('inbox');
    await page().evaluate(() => {
      document.cookie = 'session=secret; max-age=3600';
      localStorage.setItem('token', 'abc');
    });
    expect(await page().evaluate(() => document.cookie)).toContain('session=secret');
    await device.reset();
    expect(await page().evaluate(() => document.cookie)).toBe('');
    expect(await page().evaluate(() => localStorage.length)).toBe(0);
    expect(await page().context().cookies()).toEqual([]);
    expect(page().url().startsWith(sample)).toBe(true);
    // The app is launched, not visited: back at its first screen stays in the app (it used to
    // leave for the new page's about:blank, where nothing could be tapped and back went nowhere).
    expect(await page().evaluate(() => history.length)).toBe(1);
    await device.back();
    await sleep(300);
    expect(page().url().startsWith(sample)).toBe(true);
  });

  it('detects a crashed renderer, reports broken, and recovers to a working device', async () => {
    const seen: string[] = [];
    const off = provider.onChange(() => seen.push(device.health.state));
    const cdp = await page().context().newCDPSession(page());
    await cdp.send('Page.crash').catch(() => undefined);
    await waitFor('broken', () => seen.includes('broken') || undefined, 5000);
    expect((await provider.discover())[0]).toMatchObject({ health: 'broken', reason: 'the browser page crashed' });
    await waitFor('recovered', () => device.health.state === 'ready' || undefined, 10_000);
    off();
    expect((await provider.discover())[0]!.health).toBe('ready');
    expect((await device.tree()).nodes.some((n) => n.role === 'heading' && n.label === 'Inbox')).toBe(true);
  });
});

describe('the tablet profile', () => {
  it('presents an iPad-sized touch screen with its scale and user agent', async () => {
    const tablet = new WebProvider({ profiles: [PROFILES['ipad-air']!], chromium: undefined, logger: pino({ level: 'silent' }) });
    try {
      await tablet.start();
      const d = tablet.device('web-1')!;
      await waitFor('tablet ready', () => d.health.state === 'ready' || undefined, 20_000);
      expect(d.screen()).toMatchObject({ widthPt: 820, heightPt: 1180 });
      const seen = await d.currentPageForTests.evaluate(() => ({
        w: innerWidth,
        h: innerHeight,
        dpr: devicePixelRatio,
        ua: navigator.userAgent,
        touch: navigator.maxTouchPoints > 0,
      }));
      expect(seen).toMatchObject({ w: 820, h: 1180, dpr: 2, touch: true });
      expect(seen.ua).toMatch(/iPad/);
    } finally {
      await tablet.close();
    }
  });
});

describe('a browser that dies', () => {
  it('takes its devices down as broken, is relaunched, and they come back', async () => {
    const { execFileSync } = await import('node:child_process');
    const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='])
      .toString()
      .trim()
      .split('\n')
      .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)!);
    // The browser's main process: a child of this test process running chromium without --type=.
    const main = rows.find((r) => Number(r[2]) === process.pid && r[3]!.includes('chrom') && !r[3]!.includes('--type='));
    expect(main).toBeDefined();
    const states: string[] = [];
    const off = provider.onChange(() => states.push(device.health.state));
    process.kill(Number(main![1]), 'SIGKILL');
    await waitFor('broken', () => states.includes('broken') || undefined, 10_000);
    expect((await provider.discover())[0]).toMatchObject({ health: 'broken', reason: 'the browser exited' });
    await waitFor('relaunched and ready', () => device.health.state === 'ready' || undefined, 30_000);
    off();
    expect((await provider.status()).available).toBe(true);
    expect((await device.tree()).nodes.some((n) => n.role === 'tab' && n.label === 'Settings')).toBe(true);
  });
});

describe('the origin policy', () => {
  let server: Server;
  let local: string;
  let hits = 0;
  let redirectTo: string | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect' && redirectTo) {
        res.writeHead(302, { location: redirectTo });
        res.end();
        return;
      }
      hits++;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><meta name="viewport" content="width=device-width"></head><body><h1>Local app</h1></body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    local = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(
    () =>
      new Promise((r) => {
        server.closeAllConnections(); // the egress guard's fetches keep connections alive
        server.close(r);
      }),
  );

  const rules = (allowedOrigins: string[]) => ({ signal: AbortSignal.timeout(20_000), origins: { allowedOrigins, allowPrivate: false } });

  it('refuses link-local and metadata addresses and loopback names with ORIGIN_NOT_ALLOWED', async () => {
    await expect(device.prepare({ url: 'http://169.254.169.254/latest/meta-data/' }, rules(['*']))).rejects.toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    await expect(device.prepare({ url: `http://localhost:${new URL(local).port}/` }, rules(['*']))).rejects.toMatchObject({
      code: 'ORIGIN_NOT_ALLOWED',
      message: expect.stringContaining('resolves to 127.0.0.1'),
    });
    expect(hits).toBe(0);
  });

  it('opens a private origin the farm names, and still blocks the page from reaching another', async () => {
    await device.prepare({ url: `${local}/` }, rules(['*', local]));
    expect(await page().textContent('h1')).toBe('Local app');
    expect(hits).toBe(1);
    // From that page, a request to a private origin nobody named never leaves the browser.
    const other = createServer((_req, res) => res.end('leaked'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    let otherHits = 0;
    other.on('request', () => otherHits++);
    const outcome = await page().evaluate(
      (url) =>
        fetch(url).then(
          () => 'fetched',
          (e: Error) => `refused: ${e.message}`,
        ),
      `http://127.0.0.1:${(other.address() as { port: number }).port}/`,
    );
    expect(outcome).toMatch(/^refused/);
    expect(otherHits).toBe(0);
    other.close();
  });

  /** A private server nobody named, counting what reaches it: what a page must never get to. */
  async function forbidden(): Promise<{ url: string; hits: () => number; close: () => void }> {
    let n = 0;
    const other = createServer((_req, res) => {
      n++;
      res.end('leaked');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(other.address() as { port: number }).port}/secret`, hits: () => n, close: () => other.close() };
  }

  it('holds against a redirect from an allowed page to a private origin nobody named', async () => {
    const target = await forbidden();
    redirectTo = target.url;
    try {
      await device.prepare({ url: `${local}/` }, rules(['*', local]));
      // The page navigates, and it fetches; both go to the allowed origin, which redirects.
      await device.open(`${local}/redirect`).catch(() => undefined);
      const fetched = await page()
        .evaluate(
          (url) =>
            fetch(url).then(
              (r) => r.text(),
              (e: Error) => `refused: ${e.message}`,
            ),
          `${local}/redirect`,
        )
        .catch((e: Error) => `refused: ${e.message}`);
      expect(fetched).not.toBe('leaked');
      expect(target.hits()).toBe(0);
      // A redirect to where the page may go is still followed.
      redirectTo = `${local}/landed`;
      await device.open(`${local}/redirect`);
      expect(page().url()).toBe(`${local}/landed`);
      expect(await page().textContent('h1')).toBe('Local app');
    } finally {
      redirectTo = undefined;
      target.close();
    }
  });

  it('holds against navigation started inside the page (location, a link, a form, a new window)', async () => {
    const target = await forbidden();
    try {
      await device.prepare({ url: `${local}/` }, rules(['*', local]));
      await page().evaluate((url) => {
        const a = document.createElement('a');
        a.href = url;
        document.body.append(a);
        a.click();
      }, target.url);
      await sleep(300);
      await device.prepare({ url: `${local}/` }, rules(['*', local]));
      await page().evaluate((url) => {
        const f = document.createElement('form');
        f.action = url;
        f.method = 'post';
        document.body.append(f);
        f.submit();
      }, target.url);
      await sleep(300);
      await device.prepare({ url: `${local}/` }, rules(['*', local]));
      await page().evaluate((url) => void window.open(url), target.url);
      // A WebSocket is a request too (the upgrade would be the first hit).
      const ws = await page().evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const s = new WebSocket(url.replace(/^http/, 'ws'));
            s.onopen = () => resolve('open');
            s.onclose = (e) => resolve(`closed ${e.code}`);
          }),
        target.url,
      );
      expect(ws).not.toBe('open');
      await page().evaluate((url) => void (location.href = url), target.url);
      await sleep(500);
      expect(target.hits()).toBe(0);
    } finally {
      target.close();
    }
  });

  it('answers APP_UNREACHABLE for an allowed page that does not load', async () => {
    await expect(device.prepare({ url: 'http://127.0.0.1:9/' }, rules(['*', 'http://127.0.0.1:9']))).rejects.toMatchObject({ code: 'APP_UNREACHABLE' });
  });
});
