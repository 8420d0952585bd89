// Understanding on real Chromium and the sample app: outlines of every screen, identity across
// scroll positions, times and contents, the title veto, the wizard trap, the header clock, and a
// tap at the point the outline gives for a half-hidden row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as g from '../../workers/devices/gestures.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { compare, SAME_SCREEN } from '../../workers/understanding/identity.js';
import { outlineText } from '../../workers/understanding/outline.js';
import { readScreen, type ScreenReading } from '../../workers/understanding/screen.js';
// Sleeps here wait on real Chromium (its frames, its pages' own timers): no virtual clock reaches into the browser.
import { captureLabels, captureTree } from '../helpers/tree-capture.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;
let sample: string;

beforeAll(async () => {
  ({ provider, device, sample } = await webDevice());
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await provider?.close();
});

const page = () => device.currentPageForTests;
let loads = 0;
async function show(route: string): Promise<void> {
  await device.open(`${sample}?u=${++loads}#/${route}`);
  await page().waitForSelector(`.screen[data-route="${route}"]:not([hidden])`, { timeout: 5000 });
  if (route === 'inbox') await page().waitForSelector('[data-testid="message-1"]');
  await sleep(450); // the push animation of deep links is 350 ms
}
async function scrollBy(dy: number): Promise<void> {
  await page().evaluate((d) => {
    const c = document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement;
    c.scrollTop += d;
  }, dy);
  await sleep(250);
}
const read = async (): Promise<ScreenReading> => readScreen(await device.tree(), 'web');
const text = (r: ScreenReading) => outlineText(r, { device: 'web iPhone 15', screenId: r.fingerprint.hash, name: r.title });

describe('the sample app, read', () => {
  const readings = new Map<string, ScreenReading>();
  // Same-screen pairs: one screen at another scroll position, time or content.
  const same: [string, string][] = [];

  beforeAll(async () => {
    const at = async (name: string, route: string | null, then?: () => Promise<unknown>) => {
      if (route !== null) await show(route);
      if (then) await then();
      const tree = await device.tree();
      captureTree('sample', name, tree);
      readings.set(name, readScreen(tree, 'web'));
    };
    await at('inbox', 'inbox');
    await at('inbox later', null, () => sleep(1100)); // the header clock has ticked
    await at('inbox scrolled', null, () => scrollBy(400));
    await at('inbox 40 rows', null, async () => {
      await scrollBy(2000);
      await waitFor(
        'more rows',
        () =>
          page()
            .$('[data-testid="message-40"]')
            .then((x) => x ?? undefined),
        5000,
      );
      await sleep(300);
    });
    await at('inbox unread', 'inbox', () =>
      page()
        .click('[data-testid="segment-unread"]')
        .then(() => sleep(200)),
    );
    await at('message 3', 'inbox/3');
    await at('message 7', 'inbox/7');
    await at('search', 'search');
    await at('search typed', null, async () => {
      await page().fill('[data-testid="search-field"]', 'digest');
      await sleep(200);
    });
    await at('settings', 'settings');
    await at('settings scrolled', null, () => scrollBy(300));
    await at('settings bottom', null, () => scrollBy(2000));
    await at('settings wifi off', 'settings', () =>
      page()
        .click('[data-testid="switch-wifi"]')
        .then(() => sleep(200)),
    );
    await at('notifications', 'settings/notifications');
    await at('notifications toggled', null, () =>
      page()
        .click('[data-testid="switch-badges"]')
        .then(() => sleep(200)),
    );
    await at('privacy', 'settings/privacy');
    await at('form', 'settings/form');
    await at('form middle', null, () => scrollBy(700));
    await at('form bottom', null, () => scrollBy(3000));
    await at('wizard 1', 'settings/wizard');
    await at('wizard 1 filled', null, async () => {
      await page().fill('[data-testid="field-name"]', 'Ada');
      await page().fill('[data-testid="field-email"]', 'ada@example.com');
      await sleep(150);
    });
    await at('wizard 2', null, () =>
      page()
        .click('[data-testid="wizard-next"]')
        .then(() => sleep(500)),
    );
    await at('wizard 3', null, () =>
      page()
        .click('.screen:not([hidden]) .primary')
        .then(() => sleep(500)),
    );
    await at('icons', 'settings/icons');
    await at('canvas', 'settings/canvas');
    await at('photo', 'settings/photo');
    await at('loading', 'settings/loading');
    await at('compose sheet', 'inbox', () =>
      page()
        .click('[data-testid="icon-compose"]')
        .then(() => sleep(500)),
    );
    await at('delete alert', 'inbox/3', () =>
      page()
        .click('[data-testid="delete"]')
        .then(() => sleep(400)),
    );
    same.push(
      ['inbox', 'inbox later'],
      ['inbox', 'inbox scrolled'],
      ['inbox', 'inbox 40 rows'],
      ['inbox scrolled', 'inbox 40 rows'],
      ['inbox', 'inbox unread'],
      ['message 3', 'message 7'],
      ['search', 'search typed'],
      ['settings', 'settings scrolled'],
      ['settings', 'settings bottom'],
      ['settings scrolled', 'settings bottom'],
      ['settings', 'settings wifi off'],
      ['notifications', 'notifications toggled'],
      ['form', 'form middle'],
      ['form', 'form bottom'],
      ['form middle', 'form bottom'],
      ['wizard 1', 'wizard 1 filled'],
    );
    captureLabels('sample', [...readings.keys()], same, () => 'simfleet sample app');
  }, 120_000);

  it('every screen reads to a short outline, the same bytes twice, far smaller than its tree', async () => {
    await show('settings');
    const a = text(await read());
    await sleep(300);
    const b = text(await read());
    expect(b).toBe(a);
    const sizes = [...readings.entries()].map(([name, r]) => ({ name, chars: text(r).length }));
    console.log(sizes.map((s) => `${s.name}: ${s.chars}`).join(', '));
    const median = [...sizes].sort((x, y) => x.chars - y.chars)[sizes.length >> 1]!.chars;
    expect(median).toBeLessThanOrEqual(1500);
  });

  it("is at most 1/15 of the raw tree's JSON (Chromium's own accessibility tree), on the median screen", async () => {
    const cdp = await page().context().newCDPSession(page());
    try {
      const rows: { route: string; outline: number; raw: number }[] = [];
      for (const route of [
        'inbox',
        'inbox/3',
        'search',
        'settings',
        'settings/notifications',
        'settings/privacy',
        'settings/form',
        'settings/wizard',
        'settings/icons',
      ]) {
        await show(route);
        const outline = text(await read()).length;
        const raw = JSON.stringify((await cdp.send('Accessibility.getFullAXTree', {})).nodes).length;
        rows.push({ route, outline, raw });
      }
      console.log(rows.map((r) => `${r.route}: outline ${r.outline}, raw AX tree JSON ${r.raw}, 1/${(r.raw / r.outline).toFixed(1)}`).join('\n'));
      const ratios = rows.map((r) => r.raw / r.outline).sort((a, b) => a - b);
      expect(ratios[ratios.length >> 1]).toBeGreaterThanOrEqual(15);
    } finally {
      await cdp.detach();
    }
  });

  it('tells the same screen at another scroll position, time or content, and separates different screens', () => {
    const table: string[] = [];
    let recalled = 0;
    for (const [a, b] of same) {
      const c = compare(readings.get(a)!.fingerprint, readings.get(b)!.fingerprint);
      if (c.same) recalled++;
      table.push(`same  ${c.same ? 'ok  ' : 'MISS'} ${c.similarity.toFixed(3)} ${a} | ${b}`);
    }
    // Different screens: every pair of readings not declared the same screen (by group).
    const group = new Map<string, string>();
    for (const name of readings.keys()) group.set(name, name);
    for (const [a, b] of same) {
      const ga = group.get(a)!;
      const gb = group.get(b)!;
      for (const [k, v] of group) if (v === gb) group.set(k, ga);
    }
    const names = [...readings.keys()];
    let separated = 0;
    let different = 0;
    let maxDifferent = 0;
    let closest = '';
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        if (group.get(names[i]!) === group.get(names[j]!)) continue;
        different++;
        const c = compare(readings.get(names[i]!)!.fingerprint, readings.get(names[j]!)!.fingerprint);
        if (!c.same) separated++;
        else table.push(`diff  FAIL ${c.similarity.toFixed(3)} ${names[i]} | ${names[j]}`);
        if (!c.titleVeto && c.similarity > maxDifferent) {
          maxDifferent = c.similarity;
          closest = `${names[i]} | ${names[j]}`;
        }
      }
    }
    const minSame = Math.min(...same.map(([a, b]) => compare(readings.get(a)!.fingerprint, readings.get(b)!.fingerprint).similarity));
    console.log(
      `${table.join('\n')}\nsame-screen recall ${recalled}/${same.length}; different-screen separation ${separated}/${different}; lowest same ${minSame.toFixed(3)}, highest different without a title veto ${maxDifferent.toFixed(3)} (${closest}), threshold ${SAME_SCREEN}`,
    );
    expect(recalled / same.length).toBeGreaterThanOrEqual(0.95);
    expect(separated / different).toBeGreaterThanOrEqual(0.99);
  });

  it('keeps Notifications and Privacy apart by their titles, though they are built alike', () => {
    const c = compare(readings.get('notifications')!.fingerprint, readings.get('privacy')!.fingerprint);
    expect(c).toMatchObject({ titleVeto: true, same: false });
    expect(c.similarity).toBeGreaterThanOrEqual(SAME_SCREEN); // the shapes alone would have merged them
  });

  it("does not take the wizard's review step for its first step, though both are titled Sign up", () => {
    const one = readings.get('wizard 1')!;
    const review = readings.get('wizard 3')!;
    expect([one.title, review.title]).toEqual(['Sign up', 'Sign up']);
    expect(compare(one.fingerprint, review.fingerprint).same).toBe(false);
  });

  it('never lets the header clock, a date or a count into an identity', () => {
    const inbox = readings.get('inbox')!;
    const later = readings.get('inbox later')!;
    expect(text(inbox)).not.toBe(text(later)); // the clock did change on screen...
    expect(later.fingerprint.tokens).toEqual(inbox.fingerprint.tokens); // ...and not the identity
    // Names are the only free text in a fingerprint; none of them holds a digit of any script.
    for (const r of readings.values()) for (const t of r.fingerprint.tokens.filter((x) => /^[cn]:/.test(x))) expect(t, t).not.toMatch(/[\p{Nd}\p{Sc}@]/u);
  });

  it('taps a row half under the tab bar at its outline point, and that opens the row, not a tab', async () => {
    await show('inbox');
    const r = await read();
    const i = r.elements.findIndex((e) => e.flags.includes('partly-covered') && r.lists[0]?.rows.includes(r.elements.indexOf(e)));
    expect(i, text(r)).toBeGreaterThanOrEqual(0);
    const row = r.elements[i]!;
    const bar = r.regions.bottom!;
    expect(row.frame.y + row.frame.height).toBeGreaterThan(bar.y0); // really under the bar
    expect(row.tap!.y).toBeLessThan(bar.y0);
    await device.touch(g.tap(row.tap!));
    await page().waitForSelector('.screen[data-route^="inbox/"]:not([hidden])', { timeout: 5000 });
    expect(await page().evaluate(() => location.hash)).toMatch(/^#\/inbox\/\d+$/);
  });
});
