// A look whose capture stalls: the web backend bounds the compositor's answer (two requests, then a
// coded failure naming how long it waited), and `look` then serves the newest streamed frame, says
// so, and says how old it is; what the stream cannot serve (a finer scale, another failure) is
// refused as before. Real Chromium's capture is covered in test/browser (web-device, look).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../helpers/virtual-clock.js';
import type { CDPSession } from 'playwright-core';
import { DeviceError, type Frame } from '../../workers/devices/backend.js';
import { FakeDevice } from '../../workers/devices/fake/provider.js';
import { capturePng } from '../../workers/devices/web/capture.js';
import { look } from '../../workers/perception/look.js';

/** A raw frame of the fake screen's size at `ppp` pixels per point: left half red, right half blue. */
function streamed(ppp: number, ageMs: number): Frame {
  const width = Math.round(393 * ppp);
  const height = Math.round(852 * ppp);
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (x < width / 2) data[i] = 255;
      else data[i + 2] = 255;
      data[i + 3] = 255;
    }
  }
  return { data, format: 'raw', width, height, pixelsPerPoint: ppp, receivedAt: performance.now() - ageMs };
}

function stalledDevice(
  error = new DeviceError('DEVICE_FAILED', 'the browser did not capture the screen within 6000 ms (two requests)', 'retry', { stalledMs: 6000 }),
): FakeDevice {
  const device = new FakeDevice('fake-1', 0);
  device.screenshot = async () => {
    throw error;
  };
  return device;
}

describe('look when the capture stalls', () => {
  it('is a fresh capture when the capture answers', async () => {
    const img = await look(new FakeDevice('fake-1', 0), {}, () => streamed(1, 500));
    expect(img.source).toBe('capture');
    expect(img.ageMs).toBeLessThan(500);
  });

  it('serves the newest streamed frame, named as such, with its real age and its pixels where they are', async () => {
    const img = await look(stalledDevice(), { crop: { x: 200, y: 100, width: 100, height: 50 }, format: 'png' }, () => streamed(1, 700));
    expect(img).toMatchObject({ source: 'stream', width: 100, height: 50, scale: 1 });
    expect(img.ageMs).toBeGreaterThanOrEqual(700);
    const { data, info } = await sharp(Buffer.from(img.image, 'base64')).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([100, 50]);
    // x 200..300 pt lies right of the middle (196.5 pt): all blue.
    expect([data[0], data[1], data[2]]).toEqual([0, 0, 255]);
  });

  it('refuses a scale finer than the stream has, saying which the stream can serve', async () => {
    const err = await look(stalledDevice(), { scale: 2 }, () => streamed(1, 100)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect(err).toMatchObject({ code: 'DEVICE_FAILED', details: { stalledMs: 6000, streamScale: 1 } });
    expect((err as DeviceError).hint).toMatch(/scale 1 or less/);
  });

  it('passes any other failure through, frame or not, and a stall with no frame to serve', async () => {
    const broken = new DeviceError('DEVICE_FAILED', 'device web-1 is broken: the browser page crashed');
    await expect(look(stalledDevice(broken), {}, () => streamed(1, 100))).rejects.toBe(broken);
    await expect(look(stalledDevice(), {}, () => undefined)).rejects.toMatchObject({ details: { stalledMs: 6000 } });
    const unwatched = () => {
      throw new DeviceError('NOT_FOUND', 'this host has no device fake-1');
    };
    await expect(look(stalledDevice(), {}, unwatched)).rejects.toMatchObject({ code: 'DEVICE_FAILED', details: { stalledMs: 6000 } });
  });
});

/** A device whose capture has not come: it waits its turn behind others, as on a starved host. */
function queuedDevice(): { device: FakeDevice; signals: AbortSignal[] } {
  const device = new FakeDevice('fake-1', 0);
  const signals: AbortSignal[] = [];
  device.screenshot = (opts: { signal?: AbortSignal } = {}) => {
    if (opts.signal) signals.push(opts.signal);
    return new Promise(() => undefined);
  };
  return { device, signals };
}

describe('look when the capture does not come before the caller stops waiting', () => {
  it('serves the newest streamed frame a margin before the budget, and gives up the capture', async () => {
    const { device, signals } = queuedDevice();
    const t0 = performance.now();
    const img = await look(device, { format: 'png' }, () => streamed(1, 300), 250);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(240);
    expect(img).toMatchObject({ source: 'stream', width: 393, height: 852 });
    expect(img.ageMs).toBeGreaterThanOrEqual(300);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true); // not taken if its turn has not come
  });

  it('answers HOST_OVERLOADED when the stream has no frame to serve, or not at the scale asked', async () => {
    const { device } = queuedDevice();
    const none = await look(device, {}, () => undefined, 200).catch((e: unknown) => e);
    expect(none).toMatchObject({ code: 'HOST_OVERLOADED', details: { waitedMs: 200, retryAfterMs: 1000 } });
    expect((none as DeviceError).hint).toMatch(/ask again/);
    const finer = await look(device, { scale: 2 }, () => streamed(1, 100), 200).catch((e: unknown) => e);
    expect(finer).toMatchObject({ code: 'HOST_OVERLOADED', details: { waitedMs: 200, streamScale: 1 } });
    expect((finer as DeviceError).hint).toMatch(/stream can serve scale 1 or less/);
  });
});

/** A DevTools session double: the layout it reports, and captures that answer after `delays[i]` ms (Infinity: never). */
function cdpDouble(delays: number[], viewport = { pageX: 0, pageY: 0, clientWidth: 393, clientHeight: 852, scale: 1, zoom: 1 }) {
  const clips: Array<Record<string, number>> = [];
  const clock = new VirtualClock();
  const encoding = new Set<Promise<unknown>>();
  // The clock moves on only once the double's own image work is done, as a real capture's would be.
  clock.settleWith(() => Promise.all(encoding));
  let n = 0;
  const send = async (method: string, params?: { clip: Record<string, number> }) => {
    if (method === 'Page.getLayoutMetrics') return { cssVisualViewport: viewport };
    if (method !== 'Page.captureScreenshot') throw new Error(`unexpected ${method}`);
    clips.push(params!.clip);
    const delay = delays[n++] ?? 0;
    const encoded = sharp({
      create: {
        width: Math.round(params!.clip.width! * params!.clip.scale!),
        height: Math.round(params!.clip.height! * params!.clip.scale!),
        channels: 3,
        background: '#fff',
      },
    })
      .png()
      .toBuffer();
    encoding.add(encoded);
    const png = await encoded.finally(() => encoding.delete(encoded));
    if (delay === Infinity) return new Promise(() => undefined);
    if (delay) await new Promise((r) => clock.timeout(() => r(undefined), delay));
    return { data: png.toString('base64') };
  };
  return { cdp: { send } as unknown as CDPSession, clips, clock };
}

describe('the web capture', () => {
  it("asks for the visible viewport at the device's density, and reads the size from the image", async () => {
    const { cdp, clips } = cdpDouble([0]);
    const shot = await capturePng(cdp, { scale: 3 });
    expect(clips).toEqual([{ x: 0, y: 0, width: 393, height: 852, scale: 3 }]);
    expect(shot).toMatchObject({ width: 1179, height: 2556, scale: 3 });
  });

  it('keeps the device pixel size under a pinch zoom', async () => {
    const { cdp, clips } = cdpDouble([0], { pageX: 50, pageY: 80, clientWidth: 196.5, clientHeight: 426, scale: 2, zoom: 1 });
    const shot = await capturePng(cdp, { scale: 3 });
    expect(clips[0]).toMatchObject({ x: 50, y: 80, scale: 6 });
    expect([shot.width, shot.height]).toEqual([1179, 2556]);
  });

  it('sends a second request when the first goes unanswered, and takes its answer', async () => {
    const { cdp, clips, clock } = cdpDouble([Infinity, 10]);
    const shot = await clock.until(capturePng(cdp, { scale: 1, attemptMs: 100, clock }));
    expect(clips).toHaveLength(2);
    expect(shot).toMatchObject({ value: { width: 393 }, tookMs: 110 });
  });

  it('fails with a code and how long it waited when neither request is answered', async () => {
    const { cdp, clock } = cdpDouble([Infinity, Infinity]);
    const answer = await clock.until(capturePng(cdp, { scale: 1, attemptMs: 100, clock }));
    expect(answer).toMatchObject({ tookMs: 200, error: { code: 'DEVICE_FAILED', details: { stalledMs: 200 } } });
    expect((answer as { error: Error }).error.message).toMatch(/did not capture the screen within 200 ms \(two requests\)/);
  });
});
