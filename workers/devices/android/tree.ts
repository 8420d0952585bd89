// The accessibility tree through `uiautomator dump /dev/tty`, read with the one dump parser
// (understanding/sources) in dp. uiautomator waits for the screen to go idle, then walks every
// window: about 1–2 s on an emulator, longer while something animates, which is why the device
// keeps the time each dump took and the status reports the median.
import { performance } from 'node:perf_hooks';
import { DumpError, parseDump } from '../../understanding/sources/index.js';
import { DeviceError, type TreeSnapshot } from '../backend.js';
import type { Adb } from './adb.js';
import { type PixelSize, uiDumpXml } from './shell-output.js';

/** The tree; durationMs is the whole read, dump and parse. */
export async function readTree(adb: Adb, serial: string, px: PixelSize, density: number): Promise<TreeSnapshot> {
  const started = performance.now();
  // uiautomator says why it failed on stderr ("ERROR: could not get idle state."): kept for the error.
  const out = await adb.run(['exec-out', 'uiautomator', 'dump', '/dev/tty'], { serial, timeoutMs: 30_000, maxBytes: 16 * 1024 * 1024, allowExit: true });
  const xml = withScreenSize(uiDumpXml(`${out.stdout.toString('utf8')}\n${out.stderr}`), px);
  try {
    const { snapshot } = parseDump(xml, { format: 'uiautomator-xml', density });
    return { ...snapshot, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof DumpError) throw new DeviceError('DEVICE_FAILED', `the uiautomator dump of ${serial} could not be read: ${err.message}`, err.hint);
    throw err;
  }
}

/**
 * A dump from `uiautomator dump` states no screen size (Appium's page source does), so parseDump
 * would take it from the elements' bounds, which a dialog alone makes too small: the size `wm size`
 * read goes in, turned with the screen when the dump says it is rotated.
 */
export function withScreenSize(xml: string, px: PixelSize): string {
  return xml.replace(/<hierarchy\b([^>]*?)(\/?)>/, (tag, attrs: string, selfClosing: string) => {
    if (/\swidth=/.test(attrs) || px.width <= 0) return tag;
    const rotated = /\srotation="[13]"/.test(attrs);
    const [w, h] = rotated ? [px.height, px.width] : [px.width, px.height];
    return `<hierarchy${attrs} width="${w}" height="${h}"${selfClosing}>`;
  });
}
