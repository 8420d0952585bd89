// The one module that touches pixels through an image library (sharp, on libvips). Decoding runs
// on libvips' own threads, so it never holds the event loop: input and requests keep flowing while
// frames are analysed. JPEGs shrink on load (libjpeg's DCT scaling), which is most of the speed.
import sharp from 'sharp';
import type { Frame } from '../devices/backend.js';

sharp.cache(false); // every frame is new: a cache would only hold memory

/** Image work in flight on libvips' threads: a virtual clock waits for it before moving time on. */
const inFlight = new Set<Promise<unknown>>();

function tracked<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  return (...args) => {
    const p = fn(...args);
    inFlight.add(p);
    const forget = () => inFlight.delete(p);
    p.then(forget, forget);
    return p;
  };
}

/** Resolves when no image work is in flight (for tests on a virtual clock). */
export async function imagesIdle(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}

/** A frame as the backend sent it, encoded (jpeg, png) or raw RGBA. */
function frameInput(frame: Frame): sharp.Sharp {
  return frame.format === 'raw' ? sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 4 } }) : sharp(frame.data);
}

/** The frame as 8-bit gray at gridW × gridH (each grid pixel averages the points beneath it). */
export const grayGrid = tracked(async function grayGrid(frame: Frame, gridW: number, gridH: number): Promise<Uint8Array> {
  const input = frameInput(frame);
  const { data } = await input.greyscale().resize(gridW, gridH, { fit: 'fill', kernel: 'linear' }).raw().toBuffer({ resolveWithObject: true });
  // greyscale() may still hand back more than one channel for some inputs; keep the first.
  if (data.length === gridW * gridH) return new Uint8Array(data.buffer, data.byteOffset, data.length);
  const channels = data.length / (gridW * gridH);
  const out = new Uint8Array(gridW * gridH);
  for (let i = 0; i < out.length; i++) out[i] = data[i * channels]!;
  return out;
});

/** A screenshot scaled to one pixel per point: an image in the units taps are given in. */
export const pointScaled = tracked(async function pointScaled(png: Buffer, widthPt: number): Promise<Buffer> {
  return sharp(png)
    .resize({ width: Math.round(widthPt) })
    .png()
    .toBuffer();
});

/** A region of a screenshot (pixels), resized to `width` × `height` and encoded. */
export const cropAndEncode = tracked(async function cropAndEncode(
  image: Buffer | Frame,
  region: { left: number; top: number; width: number; height: number },
  out: { width: number; height: number; format: 'jpeg' | 'png'; quality: number },
): Promise<Buffer> {
  const input = Buffer.isBuffer(image) ? sharp(image) : frameInput(image);
  const img = input.extract(region).resize(out.width, out.height, { fit: 'fill' });
  return out.format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: out.quality, mozjpeg: false }).toBuffer();
});

/** A frame as it came from the backend (encoded or raw), resized and encoded as a JPEG. */
export const frameJpeg = tracked(async function frameJpeg(frame: Frame, width: number, height: number, quality: number): Promise<Buffer> {
  const input = frameInput(frame);
  return input.resize(width, height, { fit: 'fill' }).jpeg({ quality, mozjpeg: false }).toBuffer();
});

/**
 * A region of a screenshot (pixels) in gray at `scale` times its size, as PNG, both ways round:
 * `likely` is dark text on a light ground by the region's mean (Tesseract reads dark on light, and
 * reads nothing in white on near-black), `other` the inverse, for when the mean misleads (white
 * text on a mid-blue button with light margins).
 */
export const grayCrops = tracked(async function grayCrops(
  png: Buffer,
  region: { left: number; top: number; width: number; height: number },
  scale: number,
): Promise<{ likely: Buffer; other: Buffer }> {
  const gray = await sharp(png)
    .extract(region)
    .resize(Math.max(1, Math.round(region.width * scale)), Math.max(1, Math.round(region.height * scale)))
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const data = gray.data;
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i]!;
  const raw = { raw: { width: gray.info.width, height: gray.info.height, channels: 1 as const } };
  const [asIs, inverted] = await Promise.all([sharp(data, raw).png().toBuffer(), sharp(data, raw).negate().png().toBuffer()]);
  return sum / data.length < 110 ? { likely: inverted, other: asIs } : { likely: asIs, other: inverted };
});
