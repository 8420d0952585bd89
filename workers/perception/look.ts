// `look`: the screen as an image, the one answer with pixels in it. A fresh capture (not the
// analysed stream, which is small and gray), cut and scaled in points so that what an agent sees
// lines up with the outline's tap points. What cannot be served as asked is refused with what can,
// never quietly served otherwise.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend } from '../devices/backend.js';
import { cropAndEncode } from './image.js';

type Schemas = components['schemas'];

const DEFAULT_QUALITY = 80;

export async function look(device: DeviceBackend, req: Schemas['LookRequest']): Promise<Schemas['LookImage']> {
  const screen = device.screen();
  const scale = req.scale ?? 1;
  if (scale > screen.scale + 1e-9) {
    throw new DeviceError('LOOK_UNAVAILABLE', `this device has ${screen.scale} pixels per point; scale ${scale} would invent pixels`, `ask for scale ${screen.scale} or less`, { deviceScale: screen.scale });
  }
  const crop = req.crop ?? { x: 0, y: 0, width: screen.widthPt, height: screen.heightPt };
  if (crop.width < 1 || crop.height < 1 || crop.x < 0 || crop.y < 0 || crop.x + crop.width > screen.widthPt + 0.5 || crop.y + crop.height > screen.heightPt + 0.5) {
    throw new DeviceError('LOOK_UNAVAILABLE', `crop ${crop.x},${crop.y},${crop.width},${crop.height} is not inside the ${screen.widthPt}×${screen.heightPt} pt screen`, 'give x,y,width,height in points within the screen', { screen: { width: screen.widthPt, height: screen.heightPt } });
  }
  const t0 = performance.now();
  const shot = await device.screenshot();
  const pxPerPt = shot.width / screen.widthPt;
  const region = {
    left: Math.round(crop.x * pxPerPt),
    top: Math.round(crop.y * pxPerPt),
    width: Math.min(shot.width - Math.round(crop.x * pxPerPt), Math.max(1, Math.round(crop.width * pxPerPt))),
    height: Math.min(shot.height - Math.round(crop.y * pxPerPt), Math.max(1, Math.round(crop.height * pxPerPt))),
  };
  const width = Math.max(1, Math.round(crop.width * scale));
  const height = Math.max(1, Math.round(crop.height * scale));
  const format = req.format ?? 'jpeg';
  const image = await cropAndEncode(shot.png, region, { width, height, format, quality: req.quality ?? DEFAULT_QUALITY });
  return { image: image.toString('base64'), format, width, height, scale, deviceScale: screen.scale, crop, ageMs: Math.round(performance.now() - t0) };
}
