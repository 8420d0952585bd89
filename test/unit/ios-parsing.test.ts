// What the iOS backend reads from its tools, checked on real recorded outputs
// (test/doubles/ios/fixtures/README.md says where each came from): simctl's device list (two Xcode
// generations), simctl appinfo's OpenStep plist, Info.plist in its binary and XML forms; the UI
// tools' versions; the ios-frames line protocol; and how touch paths become tool commands.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { doubleTap, drag, longPress, pinch, swipe, tap } from '../../workers/devices/gestures.js';
import { DeviceListError, healthOf, modelName, parseDeviceList, runtimeName } from '../../workers/devices/ios/devices-list.js';
import { encodeCommand, MessageReader, type HelperMessage } from '../../workers/devices/ios/helper-protocol.js';
import { infoPlistString, parseOpenStep } from '../../workers/devices/ios/plist.js';
import { planTouches } from '../../workers/devices/ios/touch-plan.js';
import { readAxeVersion } from '../../workers/devices/ios/axe-version.js';
import { compareVersions, findUiTool, parseVersion } from '../../workers/devices/ios/ui-tool.js';

const FIXTURES = new URL('../doubles/ios/fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));
const DOUBLES = fileURLToPath(new URL('../doubles/ios/', import.meta.url));

describe('simctl list devices -j', () => {
  it('reads a recent list (Xcode 15, three iOS runtimes): iPhones and iPads only, with their runtimes', () => {
    const sims = parseDeviceList(fixture('simctl-list-devices.xcode15.json').toString());
    expect(sims.map((s) => `${s.name} | ${s.runtime} | ${s.state}`)).toEqual([
      'iPhone SE (3rd generation) | iOS 17.4 | Shutdown',
      'iPhone 15 | iOS 17.4 | Shutdown',
      'iPad Air (5th generation) | iOS 17.4 | Shutdown',
      'iPhone 14 | iOS 17.5 | Shutdown',
      'iPhone 15 Pro | iOS 17.5 | Booted',
      'iPad mini (6th generation) | iOS 17.5 | Shutdown',
      'iPhone 8 | iOS 15.5 | Shutdown',
    ]);
    expect(
      sims.some((s) => s.name.startsWith('iPod')),
      'an iPod touch is not an iPhone or iPad',
    ).toBe(false);
    const pro = sims.find((s) => s.udid === 'D2E4C979-FFEA-4236-9F57-64C3209975A0')!;
    expect(pro).toMatchObject({
      family: 'iPhone',
      model: 'iPhone 15 Pro',
      isAvailable: true,
      availabilityError: null,
      runtimeId: 'com.apple.CoreSimulator.SimRuntime.iOS-17-5',
    });
    expect(sims.filter((s) => s.family === 'iPad').map((s) => s.model)).toEqual(['iPad Air (5th generation)', 'iPad mini (6th generation)']);
    expect(sims.every((s) => healthOf(s).ready)).toBe(true);
  });

  it("leaves out tvOS and watchOS runtimes, even available ones, and reports unavailable devices with simctl's reason (Xcode 12)", () => {
    const sims = parseDeviceList(fixture('simctl-list-devices.xcode12.json').toString());
    expect(sims.map((s) => `${s.name} | ${s.runtime}`)).toEqual([
      'iPhone 8 | iOS 13.3',
      'iPad Pro (9.7-inch) | iOS 13.3',
      'iPhone 12 Pro | iOS 14.1',
      'iPhone 12 Pro Max | iOS 14.1',
      'iPhone 8 | iOS 14.4',
    ]);
    for (const s of sims) {
      expect(s.isAvailable).toBe(false);
      expect(s.availabilityError).toBe('runtime profile not found');
    }
    // Booted, yet unusable: its runtime is gone. Broken, with the reason.
    const max = sims.find((s) => s.name === 'iPhone 12 Pro Max')!;
    expect(max.state).toBe('Booted');
    expect(healthOf(max)).toEqual({ ready: false, reason: 'simctl says it is unavailable: runtime profile not found' });
  });

  it('names runtimes from their identifiers, including the pre-10.1 display-name keys', () => {
    expect(runtimeName('com.apple.CoreSimulator.SimRuntime.iOS-17-2')).toEqual({ platform: 'iOS', name: 'iOS 17.2' });
    expect(runtimeName('com.apple.CoreSimulator.SimRuntime.iOS-18-3-1')).toEqual({ platform: 'iOS', name: 'iOS 18.3.1' });
    expect(runtimeName('com.apple.CoreSimulator.SimRuntime.watchOS-10-0')).toEqual({ platform: 'watchOS', name: 'watchOS 10.0' });
    expect(runtimeName('com.apple.CoreSimulator.SimRuntime.xrOS-1-0').platform).toBe('xrOS');
    expect(runtimeName('iOS 12.1')).toEqual({ platform: 'iOS', name: 'iOS 12.1' });
    expect(modelName('com.apple.CoreSimulator.SimDeviceType.iPad-Pro--11-inch---2nd-generation-', 'x')).toBe('iPad Pro (11-inch) (2nd generation)');
    expect(modelName(null, 'My phone')).toBe('My phone');
  });

  it('reads device types with memory suffixes and odd separators as Xcode names them (recorded Xcode 14 and 26.1 lists)', () => {
    const type = (t: string) => modelName(`com.apple.CoreSimulator.SimDeviceType.${t}`, 'x');
    // Each id and its Xcode name side by side in test/fixtures/device-outputs' recorded lists.
    expect(type('iPad-Pro-13-inch-M5-12GB')).toBe('iPad Pro 13-inch (M5)');
    expect(type('iPad-Pro-11-inch-M5-12GB')).toBe('iPad Pro 11-inch (M5)');
    expect(type('iPad-Pro--9-7-inch-')).toBe('iPad Pro (9.7-inch)');
    expect(type('iPad-Pro--12-9-inch---4th-generation-')).toBe('iPad Pro (12.9-inch) (4th generation)');
    expect(type('iPad-Pro-12-9-inch-5th-generation')).toBe('iPad Pro (12.9-inch) (5th generation)');
    expect(type('iPhone-SE--2nd-generation-')).toBe('iPhone SE (2nd generation)');
    expect(type('iPad--7th-generation-')).toBe('iPad (7th generation)');
    expect(type('iPhone-15-Pro')).toBe('iPhone 15 Pro');
    // Later Xcode names by the same rules: a chip after the name, in parentheses.
    expect(type('iPad-mini-A17-Pro')).toBe('iPad mini (A17 Pro)');
    expect(type('iPad-Air-11-inch-M2')).toBe('iPad Air 11-inch (M2)');
  });

  it('tells the other states apart and refuses what is not the list', () => {
    const base = parseDeviceList(fixture('simctl-list-devices.xcode15.json').toString())[0]!;
    expect(healthOf({ ...base, state: 'Booting' }).ready).toBe(true);
    expect(healthOf({ ...base, state: 'Creating' })).toEqual({ ready: false, reason: 'it is in state "Creating"' });
    expect(() => parseDeviceList('xcrun: error: unable to find utility "simctl"')).toThrow(DeviceListError);
    expect(() => parseDeviceList('{"runtimes": []}')).toThrow(/without a "devices" object/);
  });
});

describe('property lists', () => {
  it("reads simctl appinfo's OpenStep output (a real recording, which has no CFBundleShortVersionString)", () => {
    const info = parseOpenStep(fixture('simctl-appinfo.neondrift.txt').toString()) as Record<string, unknown>;
    expect(info.CFBundleIdentifier).toBe('com.DefaultCompany.NeonDrift');
    expect(info.CFBundleVersion).toBe('0');
    expect(info.Path).toMatch(/\/NeonDrift\.app$/);
    expect(info.GroupContainers).toEqual({});
    expect(info.SBAppTags).toEqual([]);
    expect(info.CFBundleShortVersionString).toBeUndefined();
  });

  it('reads an Info.plist in its binary, XML and text forms', () => {
    expect(infoPlistString(fixture('Info.plist.bplist'), 'CFBundleShortVersionString')).toBe('14.2.1');
    expect(infoPlistString(fixture('Info.plist.bplist'), 'CFBundleIdentifier')).toBe('com.example.recorded');
    expect(infoPlistString(fixture('Info.plist.bplist'), 'NoSuchKey')).toBeNull();
    expect(infoPlistString(fixture('Info-utf16.plist.bplist'), 'CFBundleShortVersionString')).toBe('ünï 2.0');
    const xml = Buffer.from(
      '<?xml version="1.0"?>\n<plist version="1.0"><dict><key>CFBundleShortVersionString</key>\n<string>3.1 &amp; up</string></dict></plist>',
    );
    expect(infoPlistString(xml, 'CFBundleShortVersionString')).toBe('3.1 & up');
    expect(infoPlistString(Buffer.from('{ CFBundleShortVersionString = "1.0"; }'), 'CFBundleShortVersionString')).toBe('1.0');
    expect(() => parseOpenStep('{ A = "unterminated; }')).toThrow(/closing quote/);
  });
});

describe('UI tool versions', () => {
  // The tool doubles keep their simulated simulator in a directory of their own.
  let state: string;
  beforeAll(() => {
    state = mkdtempSync(join(tmpdir(), 'simfleet-ios-parsing-'));
    process.env.FAKE_XCRUN_STATE = state;
  });
  afterAll(() => rmSync(state, { recursive: true, force: true }));
  afterEach(() => {
    delete process.env.FAKE_AXE_VERSION;
  });

  it('reads the version forms AXe and others print, and compares them', () => {
    expect(parseVersion('1.6.0\n')).toBe('1.6.0');
    expect(parseVersion('AXe v1.2.0')).toBe('1.2.0');
    expect(parseVersion('AXe 1.10.3 (build 7)')).toBe('1.10.3');
    expect(parseVersion('AXe version unknown')).toBeNull();
    expect(compareVersions('1.10.0', '1.4.0')).toBe(1);
    expect(compareVersions('1.4', '1.4.0')).toBe(0);
    expect(compareVersions('1.3.9', '1.4.0')).toBe(-1);
  });

  it('accepts AXe 1.4.0 or later and refuses an older one with an upgrade hint', async () => {
    process.env.FAKE_AXE_VERSION = '1.6.0';
    const ok = await findUiTool('axe', `${DOUBLES}axe.mjs`);
    expect('tool' in ok && ok.tool.label).toBe(`AXe 1.6.0 at ${DOUBLES}axe.mjs`);
    process.env.FAKE_AXE_VERSION = '1.3.0';
    const old = await findUiTool('axe', `${DOUBLES}axe.mjs`);
    expect(old).toMatchObject({ missing: `AXe 1.3.0 at ${DOUBLES}axe.mjs is older than 1.4.0`, hint: expect.stringMatching(/brew upgrade axe/) });
  });

  it('reads release, staging and source-build version strings of AXe', () => {
    expect(readAxeVersion('1.8.0\n')).toEqual({ kind: 'release', version: '1.8.0' });
    expect(readAxeVersion('v1.8.0-3-g52a7bff-dirty')).toEqual({ kind: 'release', version: '1.8.0' });
    // Recorded: AXe's own golden of `axe --version` on a staging build (test/fixtures/device-outputs).
    expect(readAxeVersion('staging-main-58-51cfaf7-1-g52a7bff-dirty\n')).toEqual({ kind: 'build', label: 'staging-main-58-51cfaf7-1-g52a7bff-dirty' });
    expect(readAxeVersion('0.0.0-staging.42')).toEqual({ kind: 'build', label: '0.0.0-staging.42' });
    expect(readAxeVersion('52a7bff-dirty')).toEqual({ kind: 'build', label: '52a7bff-dirty' });
    expect(readAxeVersion('dev')).toEqual({ kind: 'build', label: 'dev' });
    expect(readAxeVersion('')).toBeNull();
    expect(readAxeVersion('command not found')).toBeNull();
  });

  it('takes a staging build, asking its help for a held touch and the hit test, and uses describe-ui --point from 1.6.0', async () => {
    process.env.FAKE_AXE_VERSION = 'staging-main-58-51cfaf7-1-g52a7bff-dirty';
    const staging = await findUiTool('axe', `${DOUBLES}axe.mjs`);
    expect('tool' in staging && [staging.tool.version, staging.tool.canDescribePoint]).toEqual(['staging-main-58-51cfaf7-1-g52a7bff-dirty', true]);
    expect('tool' in staging && staging.tool.label).toMatch(/staging or source build; features read from its help/);
    process.env.FAKE_AXE_VERSION = '0.0.0-staging.7';
    expect(await findUiTool('axe', `${DOUBLES}axe.mjs`)).toHaveProperty('tool.canDescribePoint', true);
    process.env.FAKE_AXE_VERSION = '1.6.0';
    expect(await findUiTool('axe', `${DOUBLES}axe.mjs`)).toHaveProperty('tool.canDescribePoint', true);
    process.env.FAKE_AXE_VERSION = '1.5.0';
    expect(await findUiTool('axe', `${DOUBLES}axe.mjs`)).toHaveProperty('tool.canDescribePoint', false);
  });

  it('checks idb by its help text, since fb-idb has no --version', async () => {
    const found = await findUiTool('idb', `${DOUBLES}idb.mjs`);
    expect('tool' in found).toBe(true);
    if (!('tool' in found)) return;
    expect(found.tool.version).toBeNull();
    expect(found.tool.label).toMatch(/version not reported: fb-idb has no --version/);
    expect(found.tool.format).toBe('idb-json');
  });

  it('says where it looked when no tool is there', async () => {
    expect(await findUiTool('auto', undefined, '/nonexistent')).toMatchObject({
      missing: expect.stringMatching(/axe is not on the PATH; idb is not on the PATH|not on the PATH/),
      hint: expect.stringMatching(/brew install cameroncooke\/axe\/axe/),
    });
    expect(await findUiTool('axe', '/nonexistent/axe')).toMatchObject({ missing: 'axe is not an executable at /nonexistent/axe' });
  });
});

describe('the ios-frames line protocol', () => {
  it('reassembles lines and length-prefixed frames whatever the chunk boundaries', () => {
    const got: HelperMessage[] = [];
    const errors: Error[] = [];
    const reader = new MessageReader(
      (m) => got.push(m),
      (e) => errors.push(e),
    );
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 10, 13, 10, 0]);
    const stream = Buffer.concat([
      Buffer.from('hello {"protocol":1}\n'),
      Buffer.from(`frame {"seq":1,"bytes":${image.length},"width":2,"height":1}\n`),
      image,
      Buffer.from('stats {"frames":1}\n'),
    ]);
    for (let i = 0; i < stream.length; i += 3) reader.push(stream.subarray(i, i + 3));
    expect(errors).toEqual([]);
    expect(got.map((m) => m.verb)).toEqual(['hello', 'frame', 'stats']);
    expect(got[1]!.payload).toEqual(image);
    expect(encodeCommand('snapshot', { id: 3 })).toBe('snapshot {"id":3}\n');
  });

  it('stops at the first thing that is not the protocol', () => {
    const errors: Error[] = [];
    new MessageReader(
      () => undefined,
      (e) => errors.push(e),
    ).push(Buffer.from('Welcome!\n'));
    new MessageReader(
      () => undefined,
      (e) => errors.push(e),
    ).push(Buffer.from('frame {"bytes":-1}\n'));
    new MessageReader(
      () => undefined,
      (e) => errors.push(e),
    ).push(Buffer.alloc(70_000, 0x41));
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/not `verb \{json\}`/),
      expect.stringMatching(/announcing -1 bytes/),
      expect.stringMatching(/longer than 65536/),
    ]);
  });
});

describe('touch paths as AXe/idb commands', () => {
  const at = { x: 120, y: 300 };

  it('plays a tap as a tap and a long press as a held touch', () => {
    expect(planTouches(tap(at))).toEqual([{ kind: 'tap', at, startMs: 0 }]);
    expect(planTouches(longPress(at))).toEqual([{ kind: 'press', at, holdMs: 800, startMs: 0 }]);
  });

  it('plays a double tap as two taps keeping the gap', () => {
    expect(planTouches(doubleTap(at)).map((s) => [s.kind, s.startMs])).toEqual([
      ['tap', 0],
      ['tap', 180],
    ]);
  });

  it('plays straight swipes and drags as one swipe over the whole time the finger was down', () => {
    const [fling] = planTouches(swipe({ x: 200, y: 700 }, { x: 200, y: 200 }, 250));
    expect(fling).toMatchObject({ kind: 'swipe', from: { x: 200, y: 700 }, to: { x: 200, y: 200 }, durationMs: 266 });
    const frames = drag({ x: 200, y: 600 }, { x: 200, y: 300 });
    const [d] = planTouches(frames);
    expect(d).toMatchObject({ kind: 'swipe', from: { x: 200, y: 600 }, to: { x: 200, y: 300 } });
    if (d?.kind !== 'swipe') return;
    expect(d.durationMs).toBe(frames.at(-1)!.atMs);
    expect(d.deltaPt).toBeCloseTo(10, 0);
  });

  it('refuses several fingers and a path that bends, saying why', () => {
    expect(() => planTouches(pinch({ x: 200, y: 400 }, 2))).toThrow(/2 fingers down at once; AXe and idb play one finger only/);
    const bend = [0, 1, 2, 3].map((i) => ({ atMs: i * 16, touches: [{ id: 0, x: 100 + (i < 2 ? i * 50 : 100), y: 300 + (i < 2 ? 0 : (i - 1) * 50) }] }));
    expect(() => planTouches([...bend, { atMs: 80, touches: [] }])).toThrow(/path bends/);
  });
});
