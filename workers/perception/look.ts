// `look`: the screen as an image, the one answer with pixels in it. A fresh capture (not the
// analysed stream, which is small and gray), cut and scaled in points so that what an agent sees
// lines up with the outline's tap points. What cannot be served as asked is refused with what can,
// never quietly served otherwise.
//
// When the capture stalls (the backend says so with `stalledMs`), the newest frame of the stream is
// served instead if it has the pixels asked for: the stream sends a frame on every repaint, so its
// newest frame is what the screen shows unless it is still painting, and the answer's age says how
// long ago that was. The answer names its source either way. So it is, too, when the capture has
// not come by the time the caller's budget is nearly spent (it queues behind the device's other
// captures, and a starved host is slow at all of them); with no frame to serve, the look is
// answered HOST_OVERLOADED rather than left to the gateway's timeout.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type Frame } from '../devices/backend.js';
import { overloaded } from '../overdue.js';
import { LATE, within } from '../within.js';
import { cropAndEncode } from './image.js';

type Schemas = components['schemas'];

const DEFAULT_QUALITY = 80;
/** The longest a look waits for its capture, short of the gateway's 10 s (overdue.ts). */
export const LOOK_GIVE_UP_MS = 9000;

/** The newest frame the stream brought, if any. */
export type NewestFrame = () => Frame | undefined;

export async function look(
  device: DeviceBackend,
  req: Schemas['LookRequest'],
  newest?: NewestFrame,
  giveUpMs = LOOK_GIVE_UP_MS,
): Promise<Schemas['LookImage']> {
  const screen = device.screen();
  const scale = req.scale ?? 1;
  if (scale > screen.scale + 1e-9) {
    throw new DeviceError(
      'LOOK_UNAVAILABLE',
      `this device has ${screen.scale} pixels per point; scale ${scale} would invent pixels`,
      `ask for scale ${screen.scale} or less`,
      { deviceScale: screen.scale },
    );
  }
  const crop = req.crop ?? { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt };
  if (
    crop.width < 1 ||
    crop.height < 1 ||
    crop.x < 0 ||
    crop.y < 0 ||
    crop.x + crop.width > screen.widthPt + 0.5 ||
    crop.y + crop.height > screen.heightPt + 0.5
  ) {
    throw new DeviceError(
      'LOOK_UNAVAILABLE',
      `crop ${crop.x},${crop.y},${crop.width},${crop.height} is not inside the ${screen.widthPt}×${screen.heightPt} pt screen`,
      'give x,y,width,height in points within the screen',
      { screen: { width: screen.widthPt, height: screen.heightPt } },
    );
  }
  const t0 = performance.now();
  const pixels = await capture(device, scale, newest, giveUpMs);
  const pxPerPt = pixels.width / screen.widthPt;
  // A capture with fewer pixels than asked (a page shown scaled down is captured as the compositor
  // has it) is served at what it has, and says so in its scale: pixels are never invented.
  const served = Math.min(scale, pxPerPt);
  const region = {
    left: Math.round(crop.x * pxPerPt),
    top: Math.round(crop.y * pxPerPt),
    width: Math.min(pixels.width - Math.round(crop.x * pxPerPt), Math.max(1, Math.round(crop.width * pxPerPt))),
    height: Math.min(pixels.height - Math.round(crop.y * pxPerPt), Math.max(1, Math.round(crop.height * pxPerPt))),
  };
  const width = Math.max(1, Math.round(crop.width * served));
  const height = Math.max(1, Math.round(crop.height * served));
  const format = req.format ?? 'jpeg';
  const image = await cropAndEncode(pixels.image, region, { width, height, format, quality: req.quality ?? DEFAULT_QUALITY });
  const ageMs = Math.round(performance.now() - (pixels.takenAt ?? t0));
  return {
    image: image.toString('base64'),
    format,
    width,
    height,
    scale: Math.round(served * 1000) / 1000,
    deviceScale: screen.scale,
    crop,
    ageMs,
    source: pixels.source,
  };
}

interface Pixels {
  image: Buffer | Frame;
  width: number;
  height: number;
  source: Schemas['LookImage']['source'];
  /** When a streamed frame arrived; a capture is as old as the look itself. */
  takenAt?: number;
}

async function capture(device: DeviceBackend, scale: number, newest: NewestFrame | undefined, giveUpMs: number): Promise<Pixels> {
  const givenUp = new AbortController();
  let shot;
  try {
    shot = await within(device.screenshot({ scale, signal: givenUp.signal }), giveUpMs);
  } catch (err) {
    if (!(err instanceof DeviceError) || err.details?.stalledMs === undefined) throw err;
    return fromStream(err, newest, scale);
  }
  if (shot === LATE) {
    givenUp.abort(); // not taken at all if its turn has not come
    return fromStream(
      overloaded(
        'the screen was not captured',
        giveUpMs,
        'a capture not begun by now is not taken, and the next look captures afresh; the outline (GET /v1/sessions/{id}/screen) needs no capture',
      ),
      newest,
      scale,
    );
  }
  return { image: shot.png, width: shot.width, height: shot.height, source: 'capture' };
}

/** The newest streamed frame in place of a capture that did not come, or `err` if it cannot serve. */
function fromStream(err: DeviceError, newest: NewestFrame | undefined, scale: number): Pixels {
  const frame = newestOrNone(newest);
  if (!frame) throw err;
  if (scale > frame.pixelsPerPoint + 1e-9) {
    throw new DeviceError(
      err.code,
      err.message,
      `${err.hint ?? 'retry'}; meanwhile the frame stream can serve scale ${Math.round(frame.pixelsPerPoint * 1000) / 1000} or less`,
      { ...err.details, streamScale: frame.pixelsPerPoint },
    );
  }
  return { image: frame, width: frame.width, height: frame.height, source: 'stream', takenAt: frame.receivedAt };
}

/** The stall is what the caller hears about, not a device whose frames are not watched. */
function newestOrNone(newest: NewestFrame | undefined): Frame | undefined {
  try {
    return newest?.();
  } catch {
    return undefined;
  }
}
