// Plays a touch sequence through the DevTools protocol with its real timing: real touchstart,
// touchmove and touchend events, one or several fingers. Gestures come in screen points; the
// protocol wants CSS pixels of the layout viewport, which differ on a page scaled to fit (no
// viewport meta: laid out at 980 px, shown at 0.4) or pinch-zoomed. The mapping is read once, at
// the start of the gesture: fingers are where they are on the glass, whatever the page does next.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CDPSession } from 'playwright-core';
import type { TouchFrame } from '../backend.js';

/** Time as the player sees it; a test gives it a clock of its own. */
export interface TouchClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: TouchClock = { now: () => performance.now(), sleep: (ms) => sleep(ms) };

/** A screen point in the page's client (layout viewport) CSS pixels, as elementFromPoint takes it. */
export async function clientPoint(cdp: Pick<CDPSession, 'send'>, p: { x: number; y: number }): Promise<{ x: number; y: number }> {
  const { cssVisualViewport: vv } = await cdp.send('Page.getLayoutMetrics');
  return { x: p.x / vv.scale + vv.offsetX, y: p.y / vv.scale + vv.offsetY };
}

export async function playTouches(cdp: Pick<CDPSession, 'send'>, frames: TouchFrame[], clock: TouchClock = realClock): Promise<void> {
  const { cssVisualViewport: vv } = await cdp.send('Page.getLayoutMetrics');
  const toClient = (x: number, y: number) => ({ x: x / vv.scale + vv.offsetX, y: y / vv.scale + vv.offsetY });
  const start = clock.now();
  let previous = 0;
  for (const [i, frame] of frames.entries()) {
    // Chromium acknowledges a touch only with a frame of the page's compositor. On a starved host
    // (20 devices on 2 cores) that took 1.5-2 s per event, and a 48-event drag took 75-104 s where
    // it should take 0.8: the agent's scroll outlived the gateway's wait, and every call queued
    // behind it on the device was refused unbegun. A finger keeps its time whatever the screen
    // does, so a move whose successor is already due is left out, as a slow touch panel samples
    // fewer points. Presses, lifts and the last move before either are always played: the finger
    // ends where the gesture says and still rests there before it lifts (no fling).
    const next = frames[i + 1];
    const isMove = i > 0 && frame.touches.length > 0 && frame.touches.length === frames[i - 1]!.touches.length;
    const nextIsMove = next !== undefined && next.touches.length === frame.touches.length;
    if (isMove && nextIsMove && clock.now() >= start + next.atMs) continue;
    const wait = start + frame.atMs - clock.now();
    if (wait > 1) await clock.sleep(wait);
    const points = frame.touches.map((t) => ({ ...toClient(t.x, t.y), id: t.id, radiusX: 4, radiusY: 4, force: 1 }));
    const type =
      points.length === 0 ? 'touchEnd' : previous === 0 || points.length > previous ? 'touchStart' : points.length < previous ? 'touchEnd' : 'touchMove';
    await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
    previous = points.length;
  }
  if (previous > 0) await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/** Width and height from a JPEG's frame header, without decoding it. */
export function jpegSize(data: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < data.length) {
    if (data[i] !== 0xff) return undefined;
    const marker = data[i + 1]!;
    const length = data.readUInt16BE(i + 2);
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: data.readUInt16BE(i + 5), width: data.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}
