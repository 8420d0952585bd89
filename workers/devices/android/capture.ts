// The screen as a PNG, two ways. The console's `screenrecord screenshot <dir>` has the emulator
// write the PNG straight into a folder on this host (no trip through adb or the guest), so it is
// the quicker one; it needs the console and a local emulator. Otherwise `adb exec-out screencap -p`
// has the device encode a PNG and stream it back, which takes a few hundred milliseconds on a
// phone-sized emulator screen. Either way the PNG is at the display's full resolution.
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceError } from '../backend.js';
import type { Logger } from 'pino';
import { type Adb, firstLine } from './adb.js';
import { ConsoleRefused, type EmulatorConsole } from './console.js';
import { pngSize, splitScreencap, type PixelSize } from './shell-output.js';

export interface Png {
  data: Buffer;
  size: PixelSize;
}

/** Screenshots through the console, each into a fresh folder of its own under one base folder. */
export class ConsoleShots {
  private base: Promise<string> | undefined;
  private n = 0;

  constructor(private readonly emulator: EmulatorConsole) {}

  async take(): Promise<Png> {
    this.base ??= mkdtemp(join(tmpdir(), 'simfleet-android-shots-'));
    const dir = join(await this.base, String(++this.n));
    await mkdir(dir);
    try {
      await this.emulator.screenshot(dir);
      // The emulator names the file itself; the folder holds only this one.
      const file = (await readdir(dir)).find((f) => f.toLowerCase().endsWith('.png'));
      if (!file)
        throw new DeviceError(
          'DEVICE_FAILED',
          `the emulator on port ${this.emulator.port} said OK to a screenshot but wrote no PNG into ${dir}`,
          'the emulator must run on this host (the console writes into a host folder); check its log',
        );
      return checked(await readFile(join(dir, file)), `the emulator's screenshot in ${dir}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    const base = await this.base?.catch(() => undefined);
    if (base) await rm(base, { recursive: true, force: true });
  }
}

/** Where the next capture comes from: console screenshots while they work, adb otherwise. */
export class ScreenSource {
  private shotsWhy: string | null = null;
  private warned = false;
  private readonly shots: ConsoleShots | undefined;

  constructor(
    private readonly adb: Adb,
    private readonly serial: string,
    emulator: EmulatorConsole | null,
    /** Why the console cannot be used right now (null: it can), and how to say it was lost. */
    private readonly console: { why: () => string | null; lost: (why: string) => void },
    private readonly logger: Logger,
  ) {
    this.shots = emulator ? new ConsoleShots(emulator) : undefined;
  }

  get viaConsole(): boolean {
    return Boolean(this.shots) && this.console.why() === null && this.shotsWhy === null;
  }

  async take(): Promise<Png> {
    if (this.shots && this.viaConsole) {
      try {
        return await this.shots.take();
      } catch (err) {
        // An emulator that refuses the command (too old for \`screenrecord screenshot\`) is asked no
        // more; a lost console is asked again once it answers a ping.
        if (err instanceof ConsoleRefused) this.shotsWhy = err.message;
        else this.console.lost((err as Error).message);
        this.logger.warn({ err: firstLine((err as Error).message) }, 'console screenshot failed; capturing through adb');
      }
    }
    return screencap(this.adb, this.serial, (warning) => {
      // Said once: the same warning comes with every capture of a multi-display device.
      if (this.warned) return;
      this.warned = true;
      this.logger.warn({ screencap: warning }, 'screencap printed a warning before the PNG; the PNG after it is used');
    });
  }

  async close(): Promise<void> {
    await this.shots?.close();
  }
}

export async function screencap(adb: Adb, serial: string, onWarning?: (warning: string) => void): Promise<Png> {
  const out = await adb.execOut(serial, ['screencap', '-p'], { timeoutMs: 15_000, maxBytes: 64 * 1024 * 1024 });
  const { png, warning } = splitScreencap(out);
  if (warning) onWarning?.(warning);
  return checked(png, `\`adb -s ${serial} exec-out screencap -p\``);
}

function checked(data: Buffer, what: string): Png {
  const size = pngSize(data);
  if (!size) {
    const said = data.subarray(0, 120).toString('utf8').replace(/\s+/g, ' ').trim();
    throw new DeviceError(
      'DEVICE_FAILED',
      `${what} is not a PNG${said ? `: ${said}` : ' (empty)'}`,
      'the display may be off or secure (FLAG_SECURE windows capture black or fail); wake the device',
    );
  }
  return { data, size };
}
