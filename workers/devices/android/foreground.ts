// Which app is in front, and its version. foreground() on the boundary is synchronous, so the last
// answer is kept and refreshed in the background after every action and probe: reading it costs a
// `dumpsys activity activities` (tens of milliseconds on the device, up to a few hundred KB of text,
// and an adb call). Refreshes never overlap: one asked for while one runs is done once more after
// it. After an input the read waits a moment: a burst of inputs costs one read, and an activity
// that is starting has usually resumed by then.
import type { Logger } from 'pino';
import { type Adb, firstLine, shellQuote } from './adb.js';
import { parseResumedPackage, parseVersionName } from './shell-output.js';

export class ForegroundWatch {
  private current: string | null = null;
  private readonly versions = new Map<string, string | null>();
  private running: Promise<void> | undefined;
  private again = false;
  private soon: NodeJS.Timeout | undefined;

  constructor(
    private readonly adb: Adb,
    private readonly serial: string,
    private readonly logger: Logger,
  ) {}

  get package(): string | null {
    return this.current;
  }

  /** versionName of the app in front, once read (null before, or when it states none). */
  get version(): string | null {
    return this.current ? (this.versions.get(this.current) ?? null) : null;
  }

  /** Starts a refresh (or queues one); the promise settles when the answer is current. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => (this.running = undefined));
    return this.running;
  }

  /** A refresh a little later (after an input), folded together with any other asked for meanwhile. */
  refreshSoon(delayMs = 250): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.refresh();
    }, delayMs);
    this.soon.unref();
  }

  stop(): void {
    clearTimeout(this.soon);
    this.soon = undefined;
  }

  /** A package's data was cleared or replaced: its version is read again next time. */
  forget(pkg: string): void {
    this.versions.delete(pkg);
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const out = await this.adb.shell(this.serial, 'dumpsys activity activities', { timeoutMs: 10_000, maxBytes: 16 * 1024 * 1024 });
        this.current = parseResumedPackage(out);
        if (this.current && !this.versions.has(this.current)) await this.readVersion(this.current);
      } catch (err) {
        // The last answer stands: a device that is gone says so through its health, not here.
        this.logger.debug({ err: firstLine((err as Error).message) }, 'could not read the foreground app');
      }
    } while (this.again);
  }

  private async readVersion(pkg: string): Promise<void> {
    const out = await this.adb.shell(this.serial, `dumpsys package ${shellQuote(pkg)}`, { timeoutMs: 10_000, maxBytes: 16 * 1024 * 1024 });
    this.versions.set(pkg, parseVersionName(out, pkg));
  }
}
