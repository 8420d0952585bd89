// The web device on real Chromium: input → first changed frame (phases timed apart), tree() per
// sample screen, frames per second while the spinner turns, and frames from an idle screen.
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import * as g from '../../../workers/devices/gestures.js';
import { PROFILES } from '../../../workers/devices/web/profiles.js';
import { WebProvider } from '../../../workers/devices/web/provider.js';
import { summarise, type Figure, type Suite } from '../harness.js';

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
  'settings/photo',
  'settings/loading',
];

export const webSuite: Suite = {
  name: 'web',
  describe: 'web device on real Chromium: input → first frame, tree() per screen, spinner fps',
  async run(): Promise<Figure[]> {
    const provider = new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium: undefined, logger: pino({ level: 'silent' }) });
    await provider.start();
    const device = provider.device('web-1')!;
    let loads = 0;
    const show = async (route: string) => {
      await device.open(`${provider.sampleUrl}?load=${++loads}#/${route}`);
      await sleep(route === 'inbox' ? 900 : 500);
    };
    const figures: Figure[] = [];
    try {
      // input → first changed frame: a switch tap, timed from the touch's end (dispatch apart).
      await show('settings');
      const wifi = (await device.tree()).nodes.find((n) => n.role === 'switch' && n.label === 'Wi-Fi')!;
      const at = { x: wifi.frame.x + wifi.frame.width / 2, y: wifi.frame.y + wifi.frame.height / 2 };
      const dispatch: number[] = [];
      const toFrame: number[] = [];
      for (let i = 0; i < 30; i++) {
        await sleep(400); // let the previous toggle's animation finish: no frames in flight
        let first = 0;
        let ended = 0;
        const off = device.onFrame((f) => {
          if (ended && !first) first = f.receivedAt;
        });
        const started = performance.now();
        await device.touch(g.tap(at, 30));
        ended = performance.now();
        while (!first && performance.now() - ended < 1000) await sleep(1);
        off();
        dispatch.push(ended - started);
        if (first) toFrame.push(first - ended);
      }
      figures.push(summarise('web', 'tap → first changed frame (after the touch ends)', 'ms', toFrame, { goal: '< 100 ms' }));
      figures.push(summarise('web', 'phase: playing a 30 ms tap over CDP', 'ms', dispatch));

      // tree() per sample screen
      for (const route of SCREENS) {
        await show(route);
        const times: number[] = [];
        let size = 0;
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now();
          size = (await device.tree()).nodes.length;
          times.push(performance.now() - t0);
        }
        figures.push(summarise('web', `tree() on #/${route} (${size} nodes)`, 'ms', times));
      }

      // frames per second while the spinner turns; frames from an idle screen
      await show('settings/loading');
      const fps: number[] = [];
      for (let i = 0; i < 5; i++) {
        let n = 0;
        const off = device.onFrame(() => n++);
        await sleep(1000);
        off();
        fps.push(n);
      }
      figures.push(summarise('web', 'frames per second while the spinner turns', 'fps', fps));
      await show('settings');
      await sleep(500);
      const idle: number[] = [];
      for (let i = 0; i < 3; i++) {
        let n = 0;
        const off = device.onFrame(() => n++);
        await sleep(2000);
        off();
        idle.push(n);
      }
      figures.push(summarise('web', 'frames from an idle screen over 2 s', 'frames', idle, { goal: '0' }));
    } finally {
      await provider.close();
    }
    return figures;
  },
};
