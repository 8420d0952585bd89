// What a web device's renderer holds is returned when its session ends. Soaks that keep 20 sessions
// for an hour or more see Chromium's renderers grow beyond the pages' own state, by under 1 MB per
// device every ten minutes once the soak's own measuring stopped adding to it (bench/results/2026-12-07-soak.md). A
// session's device is prepared on a fresh browser context and reset onto another when it ends
// (WebDevice.rebuild), so that growth is bounded by a session's length only if the old page's
// renderer process really exits: this checks it does, on Debian's Chromium.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { argvOf, descendantsOf } from '../helpers/proc.js';
import { waitFor } from '../helpers/wait.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;

beforeAll(async () => {
  ({ provider, device } = await webDevice());
});
afterAll(() => provider?.close());

/** Chromium's renderer processes started by this test's process (Chromium rewrites its argv into one string). */
const renderers = () =>
  new Set(
    descendantsOf(process.pid)
      .filter((p) => / --type=renderer(?: |$)/.test(argvOf(p.pid).join(' ')))
      .map((p) => p.pid),
  );

it("gives the device a new renderer process at each reset, and the old page's renderer exits", async () => {
  // Which renderer holds which page is not something Chromium says; what it must come to is that
  // resets do not add renderers. A spare renderer comes and goes around a navigation, so the count
  // is waited for rather than read once.
  const before = renderers();
  expect(before.size, 'a renderer for the device page').toBeGreaterThan(0);
  for (let round = 1; round <= 3; round++) {
    await device.reset();
    const now = await waitFor(
      `round ${round}: no more renderers than before the resets (${before.size})`,
      () => {
        const r = renderers();
        return r.size <= before.size ? r : undefined;
      },
      10_000,
      100,
    );
    expect([...before].filter((pid) => !now.has(pid)).length, 'a renderer of the pages before is gone').toBeGreaterThanOrEqual(1);
    expect(
      (await device.tree()).nodes.some((n) => n.role === 'heading' && n.label === 'Inbox'),
      'the device works on its new page',
    ).toBe(true);
  }
});
