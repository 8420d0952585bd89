// The web backend on this host: one Chromium (found, never downloaded) with a slot per configured
// profile. Without a browser the worker still starts and says why in the backend status. A browser
// that dies takes its devices down as broken; it is relaunched with backoff and they come back.
// Fresh pages load a few at a time (page-loads.ts), and a device that would not come up is booted
// again (boot-lane.ts).
import { EventEmitter } from 'node:events';
import { chromium, type Browser } from 'playwright-core';
import type { Logger } from 'pino';
import { sumPageMemory, type BackendProvider, type BackendStatus, type DeviceReport, type PageMemory } from '../backend.js';
import { BootLane } from './boot-lane.js';
import { PageLoads } from './page-loads.js';
import { chromiumArgs } from './chromium-args.js';
import { WebDevice } from './device.js';
import { findChromium, INSTALL_HINT, type BrowserFound } from './discovery.js';
import { PAGE_MEMORY_INTERVAL_MS } from './page-memory.js';
import type { WebProfile } from './profiles.js';
import { startSampleServer, type SampleServer } from './sample-server.js';

export interface WebOptions {
  profiles: WebProfile[];
  chromium: string | undefined;
  logger: Logger;
}

export class WebProvider implements BackendProvider {
  readonly backend = 'web' as const;
  private readonly events = new EventEmitter();
  private found: BrowserFound | { missing: string } | undefined;
  private browser: Browser | undefined;
  private launchError: string | undefined;
  /** The launch in flight, which close() waits for so that no browser outlives this provider. */
  private launching: Promise<void> | undefined;
  private sample: SampleServer | undefined;
  private devices: WebDevice[] = [];
  private closed = false;
  private relaunches = 0;
  private pages: PageMemory | undefined;
  private pageSampler: NodeJS.Timeout | undefined;

  private readonly lane: BootLane;
  /** Every load of a fresh page on this host's devices takes its turn here (page-loads.ts). */
  readonly loads = new PageLoads();

  constructor(private readonly opts: WebOptions) {
    this.lane = new BootLane(opts.logger);
  }

  async start(): Promise<void> {
    this.found = await findChromium(this.opts.chromium);
    if ('missing' in this.found) {
      this.opts.logger.warn({ reason: this.found.missing }, 'the web backend is unavailable');
      return;
    }
    this.sample = await startSampleServer();
    this.opts.logger.info({ url: this.sample.url }, "sample app served on loopback for this host's web devices");
    this.devices = this.opts.profiles.map(
      (profile, i) =>
        new WebDevice(
          `web-${i + 1}`,
          profile,
          () => this.browser,
          this.sample!,
          this.opts.logger.child({ localId: `web-${i + 1}` }),
          () => this.events.emit('change'),
          this.loads,
        ),
    );
    for (const d of this.devices) d.reboot = () => void this.lane.boot(d);
    // Not waited for: the worker registers at once with this backend `starting`, so the farm
    // queues a web session asked for meanwhile instead of refusing it for want of a device.
    this.launching = this.launch();
    this.pageSampler = setInterval(() => void this.samplePages(), PAGE_MEMORY_INTERVAL_MS).unref();
    void this.samplePages();
  }

  pageMemory(): PageMemory | undefined {
    return this.pages;
  }

  capturesGivenUp(): number {
    return this.devices.reduce((n, d) => n + d.capturesGivenUp, 0);
  }

  /** Reads every running page; one mid-reset or crashed is left out of this sample, not waited for. */
  private async samplePages(): Promise<void> {
    const read = await Promise.all(this.devices.map((d) => d.pageMemory().catch(() => undefined)));
    const pages = read.filter((p): p is PageMemory => p !== undefined);
    this.pages = pages.length ? sumPageMemory(pages) : undefined;
  }

  /** The sample app's URL on this host. */
  get sampleUrl(): string | undefined {
    return this.sample?.url;
  }

  async status(): Promise<BackendStatus> {
    if (!this.found) return { backend: 'web', platform: 'web', available: false, detail: 'not started', starting: true };
    if ('missing' in this.found) return { backend: 'web', platform: 'web', available: false, detail: this.found.missing, hint: INSTALL_HINT };
    const where = `${this.found.version} (${this.found.source}: ${this.found.path})`;
    if (!this.browser && !this.launchError) return { backend: 'web', platform: 'web', available: false, detail: `${where}: starting`, starting: true };
    if (!this.browser) {
      return {
        backend: 'web',
        platform: 'web',
        available: false,
        detail: `${where} would not start: ${this.launchError}`,
        hint: 'check the worker log; as root, Chromium needs --no-sandbox (simfleet adds it)',
      };
    }
    return { backend: 'web', platform: 'web', available: true, detail: `${where}; ${this.devices.length} device(s)` };
  }

  async discover(): Promise<DeviceReport[]> {
    return this.devices.map((d) => ({
      localId: d.localId,
      platform: 'web',
      backend: 'web',
      model: d.profile.model,
      os: d.profile.os,
      name: `${d.profile.model} #${d.localId.slice(4)}`,
      labels: d.profile.labels,
      health: d.health.state === 'ready' ? 'ready' : 'broken',
      ...(d.health.state === 'broken' ? { reason: d.health.reason } : d.health.state === 'booting' ? { reason: 'starting' } : {}),
    }));
  }

  device(localId: string): WebDevice | undefined {
    return this.devices.find((d) => d.localId === localId);
  }

  onChange(listener: () => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.lane.close();
    clearInterval(this.pageSampler);
    await this.launching;
    for (const d of this.devices) await d.close();
    await this.browser?.close().catch(() => undefined);
    await this.sample?.close();
    this.events.removeAllListeners();
  }

  private async launch(): Promise<void> {
    if (this.closed || !this.found || 'missing' in this.found) return;
    try {
      const args = chromiumArgs({ noSandbox: process.getuid?.() === 0 });
      // Playwright talks to Chromium over a pipe: if this worker dies, the pipe closes and Chromium exits.
      this.browser = await chromium.launch({
        executablePath: this.found.path,
        headless: true,
        args,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
      this.launchError = undefined;
      if (this.closed) return;
    } catch (err) {
      this.launchError = (err as Error).message.split('\n')[0];
      this.opts.logger.error({ err: this.launchError }, 'Chromium would not start');
      this.events.emit('change');
      this.retry();
      return;
    }
    this.browser.on('disconnected', () => {
      if (this.closed) return;
      this.browser = undefined;
      this.opts.logger.error('Chromium went away; relaunching');
      for (const d of this.devices) {
        this.lane.cancel(d.localId);
        d.browserLost('the browser exited');
      }
      this.retry();
    });
    this.events.emit('change');
    // Not waited for: each device boots when its load gets a turn and is reported as it comes up
    // (one that fails is booted again). On a starved host twenty loads took minutes, and a worker
    // waiting for them did not register in the 90 s a soak gives it.
    // The pages' memory is sampled once the first attempts are done, not 30 s later.
    void Promise.all(this.devices.map((d) => this.lane.boot(d))).then(() => this.samplePages());
  }

  private retry(): void {
    const delay = Math.min(30_000, 500 * 2 ** Math.min(this.relaunches++, 6));
    setTimeout(() => (this.launching = this.launch()), delay).unref();
  }
}
