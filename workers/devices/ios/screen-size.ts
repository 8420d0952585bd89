// The simulator's screen in points and its pixels per point. The device type fixes both; a booted
// simulator states them in its launch environment (SIMULATOR_MAINSCREEN_WIDTH and _HEIGHT in
// pixels, _SCALE as "3.000000"), read with `simctl getenv`. Where that fails, a screenshot's pixel
// size divided by the accessibility tree's root frame (points) gives the same answer.
import type { ScreenSize } from '../backend.js';
import type { Simctl } from './simctl.js';

export interface MeasuredScreen extends ScreenSize {
  widthPx: number;
  heightPx: number;
  /** How it was found, for the log. */
  how: string;
}

export function pngSize(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || png.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const positive = (s: string): number | null => {
  const n = Number(s);
  return Number.isFinite(n) && n > 0 ? n : null;
};

export async function measureScreen(
  simctl: Simctl,
  udid: string,
  fallback: () => Promise<{ png: Buffer; widthPt: number; heightPt: number }>,
): Promise<MeasuredScreen> {
  const env = await Promise.all(
    ['SIMULATOR_MAINSCREEN_WIDTH', 'SIMULATOR_MAINSCREEN_HEIGHT', 'SIMULATOR_MAINSCREEN_SCALE'].map((name) =>
      simctl.getenv(udid, name).then(positive, () => null),
    ),
  );
  const [w, h, scale] = env;
  if (w && h && scale) {
    return {
      widthPx: w,
      heightPx: h,
      scale,
      widthPt: Math.round((w / scale) * 100) / 100,
      heightPt: Math.round((h / scale) * 100) / 100,
      how: '`simctl getenv` SIMULATOR_MAINSCREEN_*',
    };
  }
  const { png, widthPt, heightPt } = await fallback();
  const px = pngSize(png);
  if (!px || !(widthPt > 0)) throw new Error('neither `simctl getenv` nor a screenshot and the accessibility tree gave the screen size');
  const s = Math.round((px.width / widthPt) * 1000) / 1000;
  return { widthPx: px.width, heightPx: px.height, scale: s, widthPt, heightPt, how: 'screenshot pixels ÷ accessibility root frame (getenv did not answer)' };
}
