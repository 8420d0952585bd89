// A capture of what the page shows, asked of the compositor over the DevTools
// protocol directly. Playwright's page.screenshot() gives the same pixels (compared byte for byte)
// but first runs a script in every frame of the page to hide the caret and waits for fonts: a look
// then restyles the screen it looks at, and waits on the page's main thread, which a busy page may
// hold. The compositor is asked for the visible viewport only, at the pixel density asked for (the
// device's own at most): a caller that reads 2 px/pt or 1 px/pt costs the browser a buffer a half or
// a ninth of a 3x one (on six devices taking 3x captures, Chromium's GPU process held about 130 MB
// more than without; measured).
//
// A capture is bounded: Chromium has been seen to leave one unanswered when its compositor sits
// idle, and a caller (a look, an OCR read) is better served by a coded failure in seconds than by
// the gateway's timeout. One retry goes out first, since the second request usually finds a frame.
import type { CDPSession } from 'playwright-core';
import { type Clock, systemClock } from '../../clock.js';
import { LATE, within } from '../../within.js';
import { DeviceError, type Screenshot } from '../backend.js';

export const CAPTURE_ATTEMPT_MS = 3000;

export interface CaptureOptions {
  /** Pixels per point of the image. */
  scale: number;
  /** How long one request may go unanswered before a second is sent; both may then answer. */
  attemptMs?: number;
  /** The screen's width in points, to state the image's true density. */
  screenWidthPt?: number;
  /** The attempts' timers; the system clock unless a test gives its own. */
  clock?: Clock;
}

export async function capturePng(cdp: CDPSession, opts: CaptureOptions): Promise<Screenshot> {
  const attemptMs = opts.attemptMs ?? CAPTURE_ATTEMPT_MS;
  const clock = opts.clock ?? systemClock;
  const t0 = clock.now();
  const first = requestCapture(cdp, opts.scale);
  let png = await within(first, attemptMs, clock);
  if (png === LATE) png = await within(Promise.race([first, requestCapture(cdp, opts.scale)]), attemptMs, clock);
  if (png === LATE) {
    const stalledMs = Math.round(clock.now() - t0);
    throw new DeviceError(
      'DEVICE_FAILED',
      `the browser did not capture the screen within ${stalledMs} ms (two requests)`,
      'retry; a browser that stays this slow is overloaded (see the host on GET /v1/hosts)',
      { stalledMs },
    );
  }
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  // The image's own density (a page shown scaled down is captured as the compositor has it, which
  // may be less than asked): width over the screen's width in points, as every caller measures it.
  return { png, width, height, scale: opts.screenWidthPt ? width / opts.screenWidthPt : opts.scale };
}

async function requestCapture(cdp: CDPSession, scale: number): Promise<Buffer> {
  const { cssVisualViewport: v } = await cdp.send('Page.getLayoutMetrics');
  // A page laid out wider than the screen and shown scaled down (no viewport meta tag: 980 px at
  // 0.4): any clip makes Chromium reset the page's scale to 1 for the capture and paint only the
  // screen's width of the layout, a corner of the page, and the page stays zoomed in afterwards.
  // So it is captured as the screen shows it, without a clip, at the compositor's own density.
  if (v.scale < 0.999) {
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: false, optimizeForSpeed: true });
    return Buffer.from(data, 'base64');
  }
  // clip.scale turns CSS pixels into image pixels: the density asked for times any pinch zoom, so the
  // image has the same size whatever the zoom.
  const clip = { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight, scale: scale * (v.zoom ?? 1) * v.scale };
  // optimizeForSpeed: a faster, larger PNG; every caller decodes it at once and never keeps it.
  const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: false, optimizeForSpeed: true });
  return Buffer.from(data, 'base64');
}
