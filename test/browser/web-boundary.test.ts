/// <reference lib="dom" />
// The web backend through the platform boundary's conformance suite, on real Chromium and the
// sample app: the same checks the Android and iOS backends pass against their doubles.
import { pino } from 'pino';
import type { Point } from '../../workers/devices/backend.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { describeBoundary } from '../helpers/boundary.js';

describeBoundary({
  name: 'web (Chromium)',
  platform: 'web',
  source: 'web',
  app: null,
  permissions: { settable: 'location', unsettable: 'contacts' },
  async setup() {
    const provider = new WebProvider({ profiles: [PROFILES['pixel-8']!], chromium: undefined, logger: pino({ level: 'silent' }) });
    const device = () => provider.device('web-1') as WebDevice;
    const page = () => device().currentPageForTests;
    return {
      provider,
      localId: 'web-1',
      close: () => provider.close(),
      double: {
        // The page itself records where touches land, in CSS pixels (= points under emulation).
        // The sample app opens on its inbox, whose clock ticks every second: a still screen is Settings.
        prepared: async () => {
          await device().open(`${provider.sampleUrl}#/settings`);
          await page().waitForSelector('.screen[data-route="settings"]:not([hidden])');
          await page().evaluate(() => {
            addEventListener(
              'touchstart',
              (e) => ((window as unknown as { lastTouch: Point }).lastTouch = { x: e.touches[0]!.clientX, y: e.touches[0]!.clientY }),
              { capture: true },
            );
          });
        },
        changeScreen: () => page().evaluate(() => void (location.hash = '#/inbox')),
        lastTouchPt: () => page().evaluate(() => (window as unknown as { lastTouch?: Point }).lastTouch ?? null),
        disconnectInput: () => void (device().swallowInput = true),
        dirty: () => page().evaluate(() => localStorage.setItem('simfleet-boundary', 'left behind')),
        isClean: () => page().evaluate(() => localStorage.getItem('simfleet-boundary') === null),
        // What the page itself is told when it asks (the Permissions API), for location: geolocation.
        permissionState: () => page().evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state),
      },
    };
  },
});
