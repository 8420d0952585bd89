// The live screen for people: the newest frame of the stream the eyes already receive, re-encoded
// small (a dashboard thumbnail or a session page), as soon as there is one newer than the viewer
// has. No capture of its own: watching a device costs it nothing. A frame smaller than asked is
// not enlarged; the answer says the scale it has.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError } from '../devices/backend.js';
import type { Eyes } from './eyes.js';
import { frameJpeg } from './image.js';

type Schemas = components['schemas'];

const MAX_WAIT_MS = 30_000;

export interface LiveRequest {
  after: number;
  waitMs: number;
  scale: number;
  quality: number;
}

export function liveRequest(params: Record<string, unknown>): LiveRequest {
  const n = (v: unknown, lo: number, hi: number, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : fallback);
  return {
    after: Math.floor(n(params.after, 0, Number.MAX_SAFE_INTEGER, 0)),
    waitMs: n(params.waitMs, 0, MAX_WAIT_MS, 10_000),
    scale: n(params.scale, 0.1, 3, 0.5),
    quality: Math.round(n(params.quality, 20, 95, 75)),
  };
}

export async function liveFrame(eyes: Eyes, screen: { widthPt: number; heightPt: number }, req: LiveRequest): Promise<Schemas['LiveImage']> {
  await eyes.idle();
  if ((eyes.store.newest()?.seq ?? 0) <= req.after) await nextFrame(eyes, req.waitMs);
  const newest = eyes.store.newest();
  const encoded = eyes.store.newestEncoded();
  if (!newest || !encoded) throw new DeviceError('SESSION_NOT_READY', 'the device has not sent a frame yet', 'try again in a moment');
  const scale = Math.min(req.scale, encoded.frame.pixelsPerPoint);
  const width = Math.max(1, Math.round(screen.widthPt * scale));
  const height = Math.max(1, Math.round(screen.heightPt * scale));
  const jpeg = await frameJpeg(encoded.frame, width, height, req.quality);
  return { seq: newest.seq, at: new Date(encoded.wallAt).toISOString(), width, height, scale: Math.round(scale * 1000) / 1000, image: jpeg.toString('base64') };
}

function nextFrame(eyes: Eyes, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const h = eyes.activity.happenings;
    const done = () => {
      clearTimeout(timer);
      h.off('frame', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    h.on('frame', done);
  });
}
