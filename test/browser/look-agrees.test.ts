// look and the outline agree: the point the outline gives an element is that element in the image,
// on pages laid out the ways real mobile pages are — with a viewport meta tag, without one (980 px
// wide and shown scaled down), wider than the screen, and zoomed in. Each element has a colour of
// its own; the pixel of look's image under its tap point must be that colour.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { look } from '../../workers/perception/look.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;

beforeAll(async () => {
  ({ provider, device } = await webDevice());
}, 90_000);
afterAll(() => provider?.close());

const COLOURS = [
  [220, 40, 40],
  [40, 160, 60],
  [40, 80, 220],
  [230, 170, 20],
  [150, 40, 180],
  [20, 170, 170],
];

/** Buttons in a grid, each filled with its own colour, `across` to a row, `width` px each. */
function grid(head: string, across: number, width: number): string {
  const buttons = COLOURS.map(
    ([r, g, b], i) =>
      `<button style="position:absolute;left:${20 + (i % across) * (width + 20)}px;top:${80 + Math.floor(i / across) * 120}px;width:${width}px;height:90px;border:0;background:rgb(${r},${g},${b});color:rgb(${r},${g},${b})">B${i}</button>`,
  ).join('');
  return `<!doctype html><html><head>${head}<style>body{margin:0}</style></head><body>${buttons}<div style="height:10px"></div></body></html>`;
}

async function agreement(html: string): Promise<{ checked: number; wrong: string[] }> {
  const page = device.currentPageForTests;
  // A navigation, as a user's: the page's scale is set afresh from its viewport meta tag (or none).
  await page.goto(`data:text/html;base64,${Buffer.from(html).toString('base64')}`);
  await page.waitForTimeout(300);
  const els = readScreen(await device.tree(), 'web').elements.filter((e) => e.role === 'button' && e.tap);
  const img = await look(device, { format: 'png', scale: 1 });
  const { data, info } = await sharp(Buffer.from(img.image, 'base64')).raw().toBuffer({ resolveWithObject: true });
  const wrong: string[] = [];
  for (const e of els) {
    const want = COLOURS[Number(e.label.slice(1))]!;
    const x = Math.round(e.tap!.x * img.scale);
    const y = Math.round(e.tap!.y * img.scale);
    const i = (y * info.width + x) * info.channels;
    const got = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (!got.every((v, k) => Math.abs(v - want[k]!) <= 16)) wrong.push(`${e.label} at ${e.tap!.x},${e.tap!.y}: image has ${got}, the button is ${want}`);
  }
  return { checked: els.length, wrong };
}

describe('look and the outline', () => {
  it('agree on a page with a viewport meta tag', async () => {
    const r = await agreement(grid('<meta name="viewport" content="width=device-width, initial-scale=1">', 3, 100));
    expect(r.checked).toBe(6);
    expect(r.wrong).toEqual([]);
  });

  it('agree on a page without one, laid out 980 px wide and shown scaled down', async () => {
    const r = await agreement(grid('', 3, 280));
    expect(r.checked).toBe(6);
    expect(r.wrong).toEqual([]);
    // And again: the first capture must not leave the page zoomed in for the next.
    expect((await agreement(grid('', 3, 280))).wrong).toEqual([]);
  });

  it('agree on a page wider than the screen', async () => {
    const r = await agreement(grid('<meta name="viewport" content="width=device-width, initial-scale=1">', 6, 180));
    expect(r.checked).toBeGreaterThanOrEqual(2);
    expect(r.wrong).toEqual([]);
  });

  it('agree on a page zoomed in', async () => {
    const r = await agreement(grid('<meta name="viewport" content="width=device-width, initial-scale=2">', 2, 60));
    expect(r.checked).toBeGreaterThanOrEqual(2);
    expect(r.wrong).toEqual([]);
  });
});
