// One web device: a browser context of its own (so nothing carries over between sessions) with one
// page in mobile emulation. Frames come from the screencast, which sends a frame only when the page
// repaints. Every request the page makes passes the origin policy. A crashed renderer makes the
// device report itself broken, then it is booted again (through the provider's boot lane, which
// retries with backoff) and reports ready again.
import { EventEmitter } from 'node:events';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { Logger } from 'pino';
import {
  DeviceError,
  type AppTarget,
  type DeviceBackend,
  type Frame,
  type FieldFocus,
  type HitElement,
  type PageMemory,
  type Point,
  type PrepareOptions,
  type ScreenSize,
  type Screenshot,
  type SelectChoices,
  type TouchFrame,
  type TreeSnapshot,
} from '../backend.js';
import { readTree } from './ax-tree.js';
import { readPageMemory } from './page-memory.js';
import { chooseOptionScript, COUNT_INPUTS, focusFieldScript, hitTestScript, INPUTS_RECEIVED, selectOptionsScript } from './page-scripts.js';
import { DEFAULT_RULES, OriginPolicy } from '../origin-policy.js';
import type { WebProfile } from './profiles.js';
import type { SampleServer } from './sample-server.js';
import { guardEgress } from './egress.js';
import { unsupported, WEB_PERMISSIONS, type PermissionOutcome, type PermissionRequest } from '../permissions.js';
import { clientPoint, jpegSize, playTouches } from './touch.js';
import { CAPTURE_ATTEMPT_MS, capturePng } from './capture.js';
import { LATE, within } from '../../within.js';
import { CapturePaints, TAIL_MS } from './capture-paints.js';
import type { PageLoads } from './page-loads.js';

export type WebHealth = { state: 'booting' } | { state: 'ready' } | { state: 'broken'; reason: string };

const NAVIGATION_TIMEOUT_MS = 30_000;

/** Chromium's touch slop for starting a scroll, measured: a 300 pt drag scrolls 285 pt. */
const CHROMIUM_TOUCH_SLOP_PT = 15;

export class WebDevice implements DeviceBackend {
  readonly touchSlopPt = CHROMIUM_TOUCH_SLOP_PT;
  readonly platform = 'web';
  health: WebHealth = { state: 'booting' };
  /**
   * Test hook: inputs are dropped before they reach the page, as they are when a simulator's input
   * service has detached; the delivery probe must say so rather than call it no visible change.
   */
  swallowInput = false;
  /** How long a page load may take before it is called unfinished; the test of that message shortens it. */
  navigationTimeoutMs = NAVIGATION_TIMEOUT_MS;
  private context: BrowserContext | undefined;
  private page: Page | undefined;
  private cdp: CDPSession | undefined;
  private readonly frames = new EventEmitter();
  private readonly policy: OriginPolicy;
  private generation = 0;
  private captures: Promise<unknown> = Promise.resolve();
  private readonly paints: CapturePaints;
  private repaintTimer: NodeJS.Timeout | undefined;
  /** What prepare() opened: launch() opens it again. */
  private appUrl: string;
  /** How a crashed device is booted again: the provider routes it through its boot lane. */
  reboot: () => void = () => void this.boot().catch((err: unknown) => this.bootFailed(`could not rebuild after a crash: ${(err as Error).message}`));

  constructor(
    readonly localId: string,
    readonly profile: WebProfile,
    private readonly browser: () => Browser | undefined,
    private readonly sample: SampleServer,
    private readonly logger: Logger,
    private readonly onHealth: () => void,
    /** The host's loads of fresh pages, shared by its devices. */
    private readonly loads: PageLoads,
  ) {
    this.frames.setMaxListeners(0);
    this.paints = new CapturePaints(profile.viewport);
    this.policy = new OriginPolicy(DEFAULT_RULES, [sample.origin]);
    this.appUrl = sample.url;
  }

  /** What this device's page holds in the renderer (page-memory.ts); undefined with no page running. */
  async pageMemory(): Promise<PageMemory | undefined> {
    return this.cdp ? readPageMemory(this.cdp) : undefined;
  }

  screen(): ScreenSize {
    return { widthPt: this.profile.viewport.width, heightPt: this.profile.viewport.height, scale: this.profile.deviceScaleFactor };
  }

  /** A fresh context showing the sample app: what an idle device looks like. */
  async boot(): Promise<void> {
    this.policy.use(DEFAULT_RULES);
    await this.rebuild(this.sample.url);
    this.setHealth({ state: 'ready' });
  }

  async prepare(app: AppTarget | null, { origins }: PrepareOptions): Promise<void> {
    this.policy.use(origins);
    const url = app?.url ?? this.sample.url;
    await this.policy.check(url);
    this.appUrl = url;
    await this.rebuild(url);
  }

  async reset(): Promise<void> {
    this.policy.use(DEFAULT_RULES);
    this.appUrl = this.sample.url;
    await this.rebuild(this.sample.url);
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.frames.on('frame', listener);
    return () => this.frames.off('frame', listener);
  }

  get model(): string {
    return this.profile.model;
  }

  foreground(): string | null {
    const url = this.page?.url();
    if (!url || !/^https?:/.test(url)) return null;
    const u = new URL(url);
    // The sample app is served by each worker on a port of its own; it is one app wherever it runs.
    if (u.origin === this.sample.origin) return `simfleet-sample-app${u.pathname}`;
    return `${u.origin}${u.pathname}`;
  }

  async tree(): Promise<TreeSnapshot> {
    return readTree(this.session(), this.screen());
  }

  async touch(frames: TouchFrame[]): Promise<void> {
    if (this.swallowInput) return;
    await playTouches(this.session(), frames);
  }

  async type(text: string): Promise<void> {
    if (this.swallowInput) return;
    await this.currentPage().keyboard.type(text);
  }

  async key(name: string): Promise<void> {
    if (this.swallowInput) return;
    await this.currentPage().keyboard.press(name);
  }

  async focusField(p: Point): Promise<FieldFocus> {
    const c = await clientPoint(this.session(), p);
    return (await this.currentPage().evaluate(focusFieldScript(c.x, c.y))) as FieldFocus;
  }

  async selectOptions(p: Point): Promise<SelectChoices | null> {
    const c = await clientPoint(this.session(), p);
    return (await this.currentPage().evaluate(selectOptionsScript(c.x, c.y))) as SelectChoices | null;
  }

  async chooseOption(p: Point, index: number): Promise<void> {
    if (this.swallowInput) return;
    const c = await clientPoint(this.session(), p);
    const chosen = await this.currentPage().evaluate(chooseOptionScript(c.x, c.y, index));
    if (chosen !== true)
      throw new DeviceError('NO_MATCH', `no select with an option ${index} at ${Math.round(p.x)},${Math.round(p.y)} any more`, 'read the screen again');
  }

  async hitTest(points: Point[]): Promise<(HitElement | null)[]> {
    return (await this.currentPage().evaluate(hitTestScript(points))) as (HitElement | null)[];
  }

  /**
   * Chromium's permission setting for the page's origin (`Browser.setPermission` for the page's own
   * browser context, which each session gets afresh: nothing carries over to the next session).
   * Reset is "prompt": the page's next request asks again.
   */
  async setPermission({ action, permission }: PermissionRequest): Promise<PermissionOutcome> {
    const names = WEB_PERMISSIONS[permission];
    if (!names) throw unsupported('web', permission, 'browsers have no such permission');
    const url = this.currentPage().url();
    if (!/^https?:/.test(url)) throw unsupported('web', permission, `the page (${url}) has no web origin to set it for`);
    const origin = new URL(url).origin;
    const cdp = this.session();
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    const setting = action === 'grant' ? 'granted' : action === 'revoke' ? 'denied' : 'prompt';
    for (const name of names) {
      await cdp.send('Browser.setPermission', {
        permission: { name },
        setting,
        origin,
        ...(targetInfo.browserContextId ? { browserContextId: targetInfo.browserContextId } : {}),
      });
    }
    return { app: origin, applied: names };
  }

  async inputsReceived(): Promise<number> {
    return Number(await this.currentPage().evaluate(INPUTS_RECEIVED));
  }

  async open(url: string): Promise<void> {
    await this.policy.check(url);
    await this.navigate(this.currentPage(), url);
  }

  async launch(): Promise<void> {
    await this.navigate(this.currentPage(), this.appUrl);
  }

  async back(): Promise<void> {
    await this.currentPage().goBack({ timeout: this.navigationTimeoutMs });
  }

  async reload(): Promise<void> {
    await this.currentPage().reload({ timeout: this.navigationTimeoutMs });
  }

  async screenshot(opts: { scale?: number; signal?: AbortSignal } = {}): Promise<Screenshot> {
    const dsf = this.profile.deviceScaleFactor;
    const cdp = this.session();
    try {
      return await this.oneCapture(
        () => this.paints.during(() => capturePng(cdp, { scale: Math.min(dsf, opts.scale ?? dsf), screenWidthPt: this.screen().widthPt })),
        opts.signal,
      );
    } finally {
      this.repaintIfOwed();
    }
  }

  /** Captures not taken because their caller had stopped waiting by their turn (oneCapture). */
  capturesGivenUp = 0;

  /** Screencast frames left out as a capture's own paint (capture-paints.ts). */
  get capturePaintsDropped(): number {
    return this.paints.dropped;
  }

  /** Once no capture runs and its tail has passed: one fresh frame of the screen in place of the paints left out. */
  private repaintIfOwed(): void {
    if (this.repaintTimer) return;
    this.repaintTimer = setTimeout(() => {
      this.repaintTimer = undefined;
      this.repaintNow();
    }, TAIL_MS);
    this.repaintTimer.unref();
  }

  private repaintNow(): void {
    if (this.paints.capturing || this.paints.takeOwed() === 0) return;
    const generation = this.generation;
    this.probe().then(
      (frame) => {
        if (generation === this.generation) this.frames.emit('frame', frame);
      },
      (err: unknown) => this.logger.debug({ localId: this.localId, err: (err as Error).message }, 'no fresh frame after a capture; the next paint will tell'),
    );
  }

  async probe(signal?: AbortSignal): Promise<Frame> {
    const cdp = this.cdp;
    if (!cdp) throw new DeviceError('DEVICE_FAILED', `device ${this.localId} has no page running`);
    const { width, height } = this.profile.viewport;
    // Same encoding as the screencast (JPEG, quality 70, 1 px/pt under emulation), so a probe of
    // an unchanged screen matches the last streamed frame.
    // Bounded: captures go one at a time, and one Chromium leaves unanswered must not hold the rest.
    const shot = await this.oneCapture(
      () => within(cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: 70, optimizeForSpeed: true }), CAPTURE_ATTEMPT_MS),
      signal,
    );
    if (shot === LATE)
      throw new DeviceError(
        'DEVICE_FAILED',
        `the browser did not draw the screen within ${CAPTURE_ATTEMPT_MS} ms`,
        'retry; a browser that stays this slow is overloaded',
        { stalledMs: CAPTURE_ATTEMPT_MS },
      );
    const buf = Buffer.from(shot.data, 'base64');
    const size = jpegSize(buf) ?? { width, height };
    return { data: buf, format: 'jpeg', width: size.width, height: size.height, pixelsPerPoint: size.width / width, receivedAt: performance.now() };
  }

  /**
   * One capture at a time. A capture at a pixel density of its own has Chromium render the page at
   * that density while it lasts, and a second capture sent meanwhile comes back at the first one's
   * size (measured: a probe beside a 2 px/pt capture came back 786 px wide, not 393, in 10 of 20),
   * and the screencast sends those paints too (capture-paints.ts).
   *
   * One whose caller has stopped waiting by its turn is not taken: on a host held to 0.8 of a core,
   * a text-recognition capture waited up to 23 s behind others (a soak's slow reads, 2026-12-06),
   * and captures nobody would use only lengthened the queue.
   */
  private oneCapture<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const turn = () => {
      if (signal?.aborted) {
        this.capturesGivenUp++;
        return Promise.reject(
          new DeviceError(
            'DEVICE_FAILED',
            'the capture was given up before its turn: its caller stopped waiting',
            "retry; the device's captures are queued behind each other on a busy host",
          ),
        );
      }
      return fn();
    };
    const run = this.captures.then(turn, turn);
    this.captures = run.catch(() => undefined);
    return run;
  }

  /** The page, for tests that check what the device shows by reading the DOM. */
  get currentPageForTests(): Page {
    return this.currentPage();
  }

  async close(): Promise<void> {
    this.generation++;
    await this.context?.close().catch(() => undefined);
    this.context = this.page = this.cdp = undefined;
  }

  /** A boot failed: broken for the farm to see until the next attempt brings the device up. */
  bootFailed(reason: string): void {
    this.setHealth({ state: 'broken', reason });
  }

  /** The browser went away: every page with it. The provider relaunches and boots us again. */
  browserLost(reason: string): void {
    this.context = this.page = this.cdp = undefined;
    this.setHealth({ state: 'broken', reason });
  }

  private async rebuild(url: string): Promise<void> {
    const browser = this.browser();
    if (!browser) throw new DeviceError('DEVICE_FAILED', 'the browser is not running', 'see the web backend status on GET /v1/hosts');
    const generation = ++this.generation;
    await this.context?.close().catch(() => undefined);
    const context = await browser.newContext({
      viewport: this.profile.viewport,
      screen: this.profile.viewport,
      deviceScaleFactor: this.profile.deviceScaleFactor,
      isMobile: true,
      hasTouch: true,
      userAgent: this.profile.userAgent,
      serviceWorkers: 'block',
    });
    // Every request, every redirect hop and every WebSocket: a public page must not reach a private address.
    await guardEgress(context, this.policy, [this.sample.origin], this.logger);
    // Counts the inputs every page of the context receives, before the app's own handlers can stop
    // them (capture phase on window): the delivery probe reads it across an action.
    await context.addInitScript(COUNT_INPUTS);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    this.context = context;
    this.page = page;
    this.cdp = cdp;
    page.on('crash', () => this.onCrash(generation));
    await this.startScreencast(cdp, generation);
    // A fresh page's load takes turns with the host's other devices' (page-loads.ts); its timeout
    // starts with its turn. Boots, resets and sessions' first loads wait here, with no caller or a
    // patient one (a prepare has two minutes). An action's relaunch or open does not: in a soak on a
    // starved host, twenty relaunches queued behind each other ran past their actions' 45 s.
    await this.loads.run(() => this.navigate(page, url));
    // The new page's first entry is about:blank: without this, back at the app's first screen
    // leaves the app for a blank page that has nothing to tap and nowhere further back (soak agents
    // were stranded there). The app is launched, as on a phone: back at its root goes nowhere.
    await cdp.send('Page.resetNavigationHistory');
  }

  private async navigate(page: Page, url: string, attempt = 1): Promise<void> {
    try {
      await page.goto(url, { waitUntil: 'load', timeout: this.navigationTimeoutMs });
    } catch (err) {
      const message = (err as Error).message;
      // The page being left can still send itself on (a timer of its own firing as the new load
      // begins) and cut the load short: the page asked for is loaded once more. A second cut is the
      // opened page's own doing, dealt with below.
      if (attempt === 1 && (message.includes('interrupted by another navigation') || message.includes('net::ERR_ABORTED'))) {
        return this.navigate(page, url, 2);
      }
      // A page that sends itself on while it loads (a script redirect, or a redirect the egress
      // guard hands over as one) is not a failure: where it ends up is what was opened.
      if (message.includes('interrupted by another navigation')) {
        await page
          .waitForURL((u) => u.protocol !== 'chrome-error:' && u.href !== 'about:blank', { waitUntil: 'load', timeout: this.navigationTimeoutMs })
          .catch(() => undefined);
        if (!page.url().startsWith('chrome-error:')) return;
      }
      if (message.includes('ERR_BLOCKED_BY_CLIENT')) {
        throw new DeviceError('ORIGIN_NOT_ALLOWED', `${url} was refused by the origin policy`);
      }
      // A load that ran out of time reached the app: on a starved host a page takes longer to load,
      // and "check that the URL is reachable" sent people looking in the wrong place.
      if (/Timeout \d+ms exceeded/.test(message)) {
        throw new DeviceError(
          'APP_UNREACHABLE',
          `${url} did not finish loading within ${this.navigationTimeoutMs / 1000} s`,
          'retry; a page this slow to load is slow itself or its host is overloaded (see simfleet_worker_strain_total)',
          { timeoutMs: this.navigationTimeoutMs },
        );
      }
      throw new DeviceError('APP_UNREACHABLE', `could not load ${url}: ${message.split('\n')[0]}`);
    }
  }

  private async startScreencast(cdp: CDPSession, generation: number): Promise<void> {
    const { width, height } = this.profile.viewport;
    cdp.on('Page.screencastFrame', (event) => {
      cdp.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
      if (generation !== this.generation) return;
      if (this.paints.isCapturePaint(event.metadata)) {
        this.logger.debug(
          { localId: this.localId, deviceWidth: event.metadata.deviceWidth },
          "a capture's own paint came through the screencast; not a frame of the screen",
        );
        this.repaintIfOwed();
        return;
      }
      const data = Buffer.from(event.data, 'base64');
      const size = jpegSize(data) ?? { width, height };
      this.frames.emit('frame', {
        data,
        format: 'jpeg',
        width: size.width,
        height: size.height,
        pixelsPerPoint: size.width / width,
        receivedAt: performance.now(),
      } satisfies Frame);
    });
    // One pixel per point is plenty for change detection; `look` takes a full-resolution screenshot.
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: width, maxHeight: height, everyNthFrame: 1 });
  }

  private onCrash(generation: number): void {
    if (generation !== this.generation) return;
    this.logger.warn({ localId: this.localId }, 'the page crashed; rebuilding the device');
    this.setHealth({ state: 'broken', reason: 'the browser page crashed' });
    // Give the gateway a moment to see "broken" (ending the session), then come back clean.
    setTimeout(() => {
      if (generation === this.generation) this.reboot();
    }, 500);
  }

  private setHealth(health: WebHealth): void {
    this.health = health;
    this.onHealth();
  }

  private currentPage(): Page {
    if (!this.page || this.health.state === 'broken')
      throw new DeviceError('DEVICE_FAILED', `device ${this.localId} is ${this.health.state === 'broken' ? `broken: ${this.health.reason}` : 'not ready'}`);
    return this.page;
  }

  private session(): CDPSession {
    this.currentPage();
    return this.cdp!;
  }
}
