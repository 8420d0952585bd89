// The iOS backend at the platform boundary, against doubles of xcrun, AXe, idb and the native frame
// helper (test/doubles/ios/) that replay real recorded outputs. No simulator runs here (this is
// Linux): what is checked is that the backend speaks the tools' real command lines, reads their
// real outputs, and keeps the boundary's promises over them.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceError } from '../../workers/devices/backend.js';
import { drag, longPress, pinch, tap } from '../../workers/devices/gestures.js';
import { FrameHelper } from '../../workers/devices/ios/frame-helper.js';
import { IosProvider, MAC_HINT, type IosOptions } from '../../workers/devices/ios/provider.js';
import { describeBoundary, type BoundaryDouble } from '../helpers/boundary.js';
import { waitFor } from '../helpers/wait.js';

/** simctl calls the backend makes on its own timers (frames polled, the device list re-read), between any others. */
const BACKGROUND = new Set(['io', 'list']);
const DOUBLES = fileURLToPath(new URL('../doubles/ios/', import.meta.url));
const UDID = 'D2E4C979-FFEA-4236-9F57-64C3209975A0'; // "iPhone 15 Pro", Booted in the recorded list
const APP = { bundleId: 'com.example.recorded' };
/** simctl privacy has a location service and no camera one. */
const PERMISSIONS = { settable: 'location', unsettable: 'camera' } as const;
const silent = pino({ level: 'silent' });
const signal = () => AbortSignal.timeout(30_000);
const NO_ORIGINS = { allowedOrigins: [], allowPrivate: false };

interface World {
  state: string;
  provider: IosProvider;
  double: BoundaryDouble;
  /** What the doubles were asked, in order: [tool, ...args]. */
  log(): string[][];
  touches(): Record<string, unknown>[];
  close(): Promise<void>;
}

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

async function world(tool: 'axe' | 'idb', extra: Partial<IosOptions> & { helperMode?: string; flags?: string[]; axeVersion?: string } = {}): Promise<World> {
  const state = await mkdtemp(join(tmpdir(), 'simfleet-ios-'));
  // Every double the backend starts finds the simulated simulator through this variable.
  process.env.FAKE_XCRUN_STATE = state;
  if (extra.helperMode) writeFileSync(join(state, 'frame-helper-mode'), extra.helperMode);
  for (const f of extra.flags ?? []) writeFileSync(join(state, f), '');
  // The version the AXe double pretends to be, for this simulated host only.
  if (extra.axeVersion) writeFileSync(join(state, 'axe-version'), extra.axeVersion);
  const { axeVersion: _, ...options } = extra;
  const provider = new IosProvider({
    xcrun: `${DOUBLES}xcrun.mjs`,
    uiTool: tool,
    uiToolPath: `${DOUBLES}${tool}.mjs`,
    reset: 'erase',
    pollMs: 100,
    platform: 'darwin',
    logger: silent,
    ...options,
  });
  const worldFile = join(state, 'world.json');
  const dataDir = join(state, 'Containers', 'Data');
  const double: BoundaryDouble = {
    async changeScreen() {
      const w = JSON.parse(readFileSync(worldFile, 'utf8')) as { screen: string };
      w.screen = w.screen === 'friends' ? 'account-settings' : 'friends';
      writeFileSync(`${worldFile}.test`, JSON.stringify(w));
      renameSync(`${worldFile}.test`, worldFile);
    },
    async lastTouchPt() {
      const last = lines(join(state, 'touches.jsonl'))
        .filter((t) => typeof t.x === 'number')
        .at(-1);
      return last ? { x: last.x as number, y: last.y as number } : null;
    },
    disconnectInput() {
      writeFileSync(join(state, 'input-detached'), '');
    },
    async dirty() {
      mkdirSync(join(dataDir, APP.bundleId, 'Documents'), { recursive: true });
      writeFileSync(join(dataDir, APP.bundleId, 'Documents', 'session.txt'), 'what the last session left');
    },
    async permissionState(name) {
      const w = JSON.parse(readFileSync(worldFile, 'utf8')) as { privacy?: Record<string, Record<string, 'granted' | 'denied'>> };
      return w.privacy?.[APP.bundleId]?.[name] ?? 'prompt';
    },
    async isClean() {
      if (!existsSync(dataDir)) return true;
      const entries = await readdir(dataDir, { recursive: true });
      for (const e of entries) if ((await stat(join(dataDir, e))).isFile()) return false;
      return true;
    },
  };
  return {
    state,
    provider,
    double,
    log: () => lines(join(state, 'log.jsonl')).map((l) => [l.tool as string, ...((l.args as string[]) ?? [])]),
    touches: () => lines(join(state, 'touches.jsonl')),
    async close() {
      await provider.close();
      // A double started by a timer just before the close may still be writing its log here.
      await rm(state, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

describeBoundary({
  name: 'ios (xcrun + axe doubles)',
  platform: 'ios',
  source: 'axe',
  app: APP,
  permissions: PERMISSIONS,
  setup: () => world('axe').then((w) => ({ ...w, localId: UDID })),
});
// The same suite over the AXe versions the recorded outputs come from: 1.8.0 (describe-ui on iOS
// 18.5) and a staging build (its recorded version string and help texts).
for (const axeVersion of ['1.8.0', 'staging-main-58-51cfaf7-1-g52a7bff-dirty']) {
  describeBoundary({
    name: `ios (xcrun + axe ${axeVersion} doubles)`,
    platform: 'ios',
    source: 'axe',
    app: APP,
    permissions: PERMISSIONS,
    setup: () => world('axe', { axeVersion }).then((w) => ({ ...w, localId: UDID })),
  });
}
describeBoundary({
  name: 'ios (xcrun + idb doubles)',
  platform: 'ios',
  source: 'idb',
  app: APP,
  permissions: PERMISSIONS,
  setup: () => world('idb').then((w) => ({ ...w, localId: UDID })),
});
describeBoundary({
  name: 'ios (xcrun + axe doubles, native frame helper double)',
  platform: 'ios',
  source: 'axe',
  app: APP,
  permissions: PERMISSIONS,
  setup: () => world('axe', { frameHelper: `${DOUBLES}frame-helper.mjs` }).then((w) => ({ ...w, localId: UDID })),
});

describe('the ios backend over its doubles', () => {
  let w: World;
  const device = () => w.provider.device(UDID)!;
  const simctl = () =>
    w
      .log()
      .filter((l) => l[0] === 'xcrun' && l[1] === 'simctl')
      .map((l) => l[2]!);

  beforeAll(async () => {
    w = await world('axe');
    await w.provider.start();
    await device().prepare(APP, { signal: signal(), origins: NO_ORIGINS });
  });
  afterAll(() => w.close());

  it('discovers the iPhones and iPads of the recorded list, booted or not, and leaves the iPod out', async () => {
    const found = await w.provider.discover();
    expect(found.map((d) => d.name)).toEqual([
      'iPhone SE (3rd generation)',
      'iPhone 15',
      'iPad Air (5th generation)',
      'iPhone 14',
      'iPhone 15 Pro',
      'iPad mini (6th generation)',
      'iPhone 8',
    ]);
    expect(found.find((d) => d.localId === UDID)).toEqual({
      localId: UDID,
      platform: 'ios',
      backend: 'ios',
      model: 'iPhone 15 Pro',
      os: 'iOS 17.5',
      name: 'iPhone 15 Pro',
      labels: ['simulator', 'iOS 17.5', 'iPhone'],
      health: 'ready',
    });
    const status = await w.provider.status();
    expect(status.detail).toMatch(
      /simctl at \/Applications\/Xcode\.app\/Contents\/Developer\/usr\/bin\/simctl; AXe 1\.6\.0 at .*axe\.mjs; reset by erase; frames: screenshot polling/,
    );
    // The prepared simulator's frame source and what it costs; the others have none yet.
    expect(status.detail).toContain(`frame cost: ${UDID}: polling \`simctl io screenshot\``);
    expect(status.detail).not.toContain('844FA4B6');
  });

  it("measures the screen from the simulator's environment, launched the app and knows its version from Info.plist", () => {
    expect(device().screen()).toEqual({ widthPt: 402, heightPt: 874, scale: 3 });
    expect(device().foreground()).toBe(APP.bundleId);
    expect(device().appVersion()).toBe('14.2.1');
    expect(simctl()).toEqual(expect.arrayContaining(['boot', 'bootstatus', 'getenv', 'terminate', 'launch', 'appinfo']));
  });

  it('taps at the point it is given, in points, without conversion', async () => {
    await device().touch(tap({ x: 123.4, y: 567.8 }));
    expect(w.touches().at(-1)).toMatchObject({ tool: 'axe', kind: 'tap', x: 123.4, y: 567.8, udid: UDID });
  });

  it('plays a long press as a held touch and a drag as one swipe; refuses two fingers', async () => {
    await device().touch(longPress({ x: 50, y: 60 }, 700));
    expect(w.touches().at(-1)).toMatchObject({ kind: 'press', x: 50, y: 60, down: true, up: true, holdS: 0.7 });
    await device().touch(drag({ x: 200, y: 600 }, { x: 200, y: 300 }, { dwellSteps: 2 }));
    expect(w.touches().at(-1)).toMatchObject({ kind: 'swipe', x: 200, y: 600, to: { x: 200, y: 300 } });
    await expect(device().touch(pinch({ x: 200, y: 400 }, 2))).rejects.toMatchObject({ code: 'DEVICE_FAILED', hint: expect.stringMatching(/multi-touch/) });
  });

  it('types text with newlines as Enter presses, and keys by their HID codes', async () => {
    await device().type('hello\nthere');
    await device().key('ArrowDown');
    expect(
      w
        .touches()
        .slice(-4)
        .map((t) => [t.kind, t.text ?? t.code]),
    ).toEqual([
      ['type', 'hello'],
      ['key', 40],
      ['type', 'there'],
      ['key', 81],
    ]);
    await expect(device().type('日本語')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(device().key('F13')).rejects.toMatchObject({ code: 'VALIDATION_FAILED', hint: expect.stringMatching(/Enter/) });
  });

  it('has no back key, says so, and refuses a URL or an Android package as the app', async () => {
    await expect(device().back()).rejects.toMatchObject({ code: 'DEVICE_FAILED', hint: expect.stringMatching(/back button in the outline/) });
    await expect(device().prepare({ url: 'https://example.com/' }, { signal: signal(), origins: NO_ORIGINS })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(device().prepare({ package: 'com.android.settings' }, { signal: signal(), origins: NO_ORIGINS })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('says plainly when the app is not installed', async () => {
    const err = await device()
      .prepare({ bundleId: 'com.example.absent' }, { signal: signal(), origins: NO_ORIGINS })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect(err).toMatchObject({
      code: 'APP_UNREACHABLE',
      message: `com.example.absent is not installed on simulator ${UDID}`,
      hint: expect.stringMatching(/xcrun simctl install/),
    });
    await device().prepare(APP, { signal: signal(), origins: NO_ORIGINS });
  });

  it('opens URLs with simctl openurl and names what nothing handles', async () => {
    await device().open('https://example.com/');
    expect(
      w
        .log()
        .filter((l) => !BACKGROUND.has(l[2]!))
        .at(-1),
    ).toEqual(['xcrun', 'simctl', 'openurl', UDID, 'https://example.com/']);
    await expect(device().open('zzzz://nothing')).rejects.toMatchObject({
      code: 'APP_UNREACHABLE',
      message: 'nothing installed on the simulator opens zzzz://nothing',
    });
  });

  it('takes a full-resolution screenshot', async () => {
    const shot = await device().screenshot();
    expect(shot).toMatchObject({ width: 1206, height: 2622, scale: 3 });
    expect(shot.png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('resets by erase: shutdown, erase, boot, then the app reinstalled from its copy', async () => {
    const before = w.log().length;
    await device().reset(signal());
    const steps = w
      .log()
      .slice(before)
      .filter((l) => l[0] === 'xcrun' && !BACKGROUND.has(l[2]!))
      .map((l) => l[2]);
    expect(steps).toEqual(['appinfo', 'shutdown', 'erase', 'boot', 'bootstatus', 'install']);
    expect(device().foreground()).toBeNull();
    await device().prepare(APP, { signal: signal(), origins: NO_ORIGINS });
    expect(device().foreground()).toBe(APP.bundleId);
  });
});

/** A named leaf button of the tree and a point in its middle. */
async function aButton(device: NonNullable<ReturnType<IosProvider['device']>>) {
  const tree = await device.tree();
  const button = tree.nodes.find((n) => n.role === 'button' && n.label && !tree.nodes.some((c) => c.parent === n.index))!;
  expect(button).toBeDefined();
  return { button, at: { x: Math.round(button.frame.x + button.frame.width / 2), y: Math.round(button.frame.y + button.frame.height / 2) } };
}

describe('the hit test: idb describe-point, AXe describe-ui --point from 1.6.0', () => {
  // AXe versions as `axe --version` prints them: releases, and a staging build's recorded string.
  const tools = [
    { tool: 'idb', version: undefined, argv: (x: number, y: number) => ['idb', 'ui', 'describe-point', '--json', String(x), String(y), '--udid', UDID] },
    { tool: 'axe', version: '1.6.0', argv: (x: number, y: number) => ['axe', 'describe-ui', '--point', `${x},${y}`, '--udid', UDID] },
    {
      tool: 'axe',
      version: 'staging-main-58-51cfaf7-1-g52a7bff-dirty',
      argv: (x: number, y: number) => ['axe', 'describe-ui', '--point', `${x},${y}`, '--udid', UDID],
    },
  ] as const;
  for (const { tool, version, argv } of tools) {
    it(`names the element a touch at a point reaches, nothing off the screen (${tool}${version ? ` ${version}` : ''})`, async () => {
      const w = await world(tool, version ? { axeVersion: version } : {});
      try {
        await w.provider.start();
        const device = w.provider.device(UDID)!;
        await device.prepare(APP, { signal: signal(), origins: NO_ORIGINS });
        const { button, at } = await aButton(device);
        const [hit, off] = await device.hitTest!([at, { x: 1000, y: 2000 }]);
        expect(hit).toMatchObject({ role: 'button', label: button.label, interactive: true });
        expect(hit!.frame).toEqual(button.frame);
        expect(off).toBeNull();
        expect(w.log()).toContainEqual(argv(at.x, at.y));
      } finally {
        await w.close();
      }
    });
  }

  it('offers no hit test with AXe before 1.6.0, and says so in the status', async () => {
    const axe = await world('axe', { axeVersion: '1.5.0' });
    try {
      await axe.provider.start();
      expect(axe.provider.device(UDID)!.hitTest).toBeUndefined();
      expect((await axe.provider.status()).detail).toContain('AXe 1.5.0 at');
      expect((await axe.provider.status()).detail).toContain('no hit test before 1.6.0');
    } finally {
      await axe.close();
    }
  });
});

describe('a stale idb companion (its recorded empty answer)', () => {
  it('is a typed error naming the fix, for the tree and for the hit test, and the hosts list and logs carry it', async () => {
    const w = await world('idb');
    try {
      await w.provider.start();
      const device = w.provider.device(UDID)!;
      await device.prepare(APP, { signal: signal(), origins: NO_ORIGINS });
      const { at } = await aButton(device);
      writeFileSync(join(w.state, 'stale-companion'), '');
      const stale = { code: 'DEVICE_FAILED', hint: expect.stringMatching(/^restart the idb companion/), details: { cause: 'IDB_COMPANION_STALE' } };
      const tree = await device.tree().catch((e: unknown) => e);
      expect(tree).toBeInstanceOf(DeviceError);
      expect(tree).toMatchObject({ ...stale, message: expect.stringMatching(/its companion has lost the simulator/) });
      const hit = await device.hitTest!([at]).catch((e: unknown) => e);
      expect(hit).toBeInstanceOf(DeviceError);
      expect(hit).toMatchObject(stale);
      const status = await w.provider.status();
      expect(status.hint).toMatch(/^restart the idb companion/);
      expect(status.detail).toContain(`${UDID}: IDB_COMPANION_STALE`);
      // Once the companion answers again, the cause is gone from the status.
      rmSync(join(w.state, 'stale-companion'));
      await device.tree();
      expect((await w.provider.status()).hint).toBeUndefined();
    } finally {
      await w.close();
    }
  });
});

describe('the reinstall reset policy, and the screen size without simctl getenv', () => {
  it('measures the screen from a screenshot and the tree, then resets: terminate, uninstall, reinstall, permissions', async () => {
    const w = await world('idb', { reset: 'reinstall', flags: ['fail-getenv'] });
    try {
      await w.provider.start();
      const device = w.provider.device(UDID)!;
      await device.prepare(APP, { signal: signal(), origins: NO_ORIGINS });
      // The screenshot's pixels over the accessibility tree's root frame.
      expect(device.screen()).toEqual({ widthPt: 402, heightPt: 874, scale: 3 });
      await w.double.dirty();
      const before = w.log().length;
      await device.reset(signal());
      const steps = w
        .log()
        .slice(before)
        .filter((l) => l[0] === 'xcrun' && !BACKGROUND.has(l[2]!))
        .map((l) => l.slice(2, 4).join(' '));
      expect(steps).toEqual([`appinfo ${UDID}`, `terminate ${UDID}`, `uninstall ${UDID}`, `install ${UDID}`, `privacy ${UDID}`]);
      expect(
        w
          .log()
          .filter((l) => !BACKGROUND.has(l[2]!))
          .at(-1),
      ).toEqual(['xcrun', 'simctl', 'privacy', UDID, 'reset', 'all', APP.bundleId]);
      expect(await w.double.isClean()).toBe(true);
    } finally {
      await w.close();
    }
  });
});

describe('the ios provider off macOS', () => {
  it('reports unavailable with the hint and runs no xcrun', async () => {
    const w = await world('axe', { platform: 'linux' });
    try {
      await w.provider.start();
      expect(await w.provider.status()).toEqual({
        backend: 'ios',
        platform: 'ios',
        available: false,
        detail: 'this host runs linux, not macOS; xcrun was not run',
        hint: MAC_HINT,
      });
      expect(MAC_HINT).toBe('iOS simulators need a Mac with Xcode; run the worker there');
      expect(await w.provider.discover()).toEqual([]);
      expect(w.log()).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

describe('the native frame helper when it misbehaves', () => {
  const attach = { udid: UDID, name: 'iPhone 15 Pro', runtime: 'iOS 17.5', widthPt: 402, heightPt: 874, widthPx: 1206, heightPx: 2622 };
  // Long enough for a Node double to start on a loaded machine (a 400 ms hello limit was not, in CI).
  const quick = { helloMs: 2500, attachMs: 5000, snapshotMs: 5000 };
  let state: string;
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'simfleet-ios-helper-'));
    process.env.FAKE_XCRUN_STATE = state;
  });
  afterAll(() => rm(state, { recursive: true, force: true }));
  const start = (mode: string) => {
    writeFileSync(join(state, 'frame-helper-mode'), mode);
    return FrameHelper.start(`${DOUBLES}frame-helper.mjs`, attach, silent, quick);
  };

  it('says so when the helper exits before attaching, with what it said', async () => {
    await expect(start('exit')).rejects.toThrow(
      /the frame helper exited \(code 3\) before it was attached; it said: ios-frames: Screen Recording permission has not been granted/,
    );
  });

  it('refuses a helper that speaks another protocol version', async () => {
    await expect(start('wrong-version')).rejects.toMatchObject({
      message: expect.stringMatching(/speaks protocol 2; this worker speaks protocol 1/),
      hint: expect.stringMatching(/rebuild the helper/),
    });
  });

  it('gives up on a helper that never says hello, or says something else', async () => {
    await expect(start('silent')).rejects.toThrow(/said nothing for [0-9.]+ s while waiting for its hello/);
    await expect(start('garbage')).rejects.toThrow(/a line that is not `verb \{json\}`: "Welcome to ios-frames!"/);
  });

  it('attaches a working helper, streams its frames with damage in points, and answers snapshots', async () => {
    const helper = await start('ok');
    try {
      const frame = await helper.snapshot();
      expect(frame).toMatchObject({ format: 'png', width: 402, height: 874, pixelsPerPoint: 1 });
      expect(helper.label).toBe('simfleet-ios-frames-double 0.0.0 (protocol 1)');
    } finally {
      await helper.close();
    }
  });

  it('falls back to polling screenshots when the helper is refused, and when it dies later; the status says why', async () => {
    for (const [mode, why] of [
      ['wrong-version', /native helper not used: the frame helper at .* speaks protocol 2; this worker speaks protocol 1/],
      ['exit-after-attach', /native helper not used: the frame helper at .* exited \(code 4\)/],
    ] as const) {
      // These helpers do say hello, and what they say is the point: time enough for a node double to
      // start on a loaded machine (2.5 s was not, in CI: the reason read "never said hello").
      const w = await world('axe', { frameHelper: `${DOUBLES}frame-helper.mjs`, helperMode: mode, helperTimeouts: { ...quick, helloMs: 10_000 } });
      try {
        await w.provider.start();
        const device = w.provider.device(UDID)!;
        await device.prepare(APP, { signal: signal(), origins: NO_ORIGINS });
        await waitFor(`the ${mode} helper to be given up`, () => /polling/.test(device.describeFrames() ?? ''), 25_000);
        expect(device.describeFrames()).toMatch(why);
        expect((await w.provider.status()).detail).toMatch(why);
        const frame = await device.probe();
        expect(frame).toMatchObject({ format: 'png', width: 1206, pixelsPerPoint: 3 });
      } finally {
        await w.close();
      }
    }
  });
});
