// The iOS doubles' never-recorded home screen: horizontal bands of two colours, so it has its own
// pixels and encodes to the same bytes every time (recorded screens are drawn by ../../layout-png.mjs).
import { encodePng } from '../../png.mjs';

/** Bands `band` pixels tall alternating colours a and b ([r, g, b] each). */
export function bandsPng(width, height, band, a, b) {
  const rowOf = (rgb) => {
    const row = Buffer.alloc(width * 3);
    for (let x = 0; x < width; x++) row.set(rgb, x * 3);
    return row;
  };
  const rows = [rowOf(a), rowOf(b)];
  return encodePng(width, height, 3, (y) => rows[Math.floor(y / band) % 2]);
}
