// The conformance corpus: every recorded output in test/fixtures/device-outputs/ (its README says
// where each came from) read by the parser the backend runs on it, and checked against a reading
// written by hand from the sample. No simulator or emulator runs here; these are what the real
// tools printed on other people's machines.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDevicesList, stateHealth } from '../../workers/devices/android/devices-list.js';
import {
  monkeyFailure,
  parseResumedPackage,
  parseWmDensity,
  parseWmSize,
  pmPermissionRefusal,
  pngSize,
  splitScreencap,
  uiDumpXml,
} from '../../workers/devices/android/shell-output.js';
import { withScreenSize } from '../../workers/devices/android/tree.js';
import { axeFeatures, readAxeVersion } from '../../workers/devices/ios/axe-version.js';
import { parseDeviceList } from '../../workers/devices/ios/devices-list.js';
import { isEmptySentinel } from '../../workers/devices/ios/empty-tree.js';
import { parseOpenStep } from '../../workers/devices/ios/plist.js';
import { launchedPid } from '../../workers/devices/ios/simctl.js';
import { parseDump } from '../../workers/understanding/sources/index.js';

const DIR = new URL('../fixtures/device-outputs/', import.meta.url);
const bytes = (f: string) => readFileSync(new URL(f, DIR));
const text = (f: string) => bytes(f).toString('utf8');

/** One sample: the tool and OS it came from (for the count by tool and version) and its reading checked by hand. */
interface Sample {
  tool: string;
  os: string;
  check: (file: string) => void;
}

const sims = (f: string) => parseDeviceList(text(f)).map((s) => `${s.name} | ${s.model} | ${s.runtime} | ${s.state}${s.isAvailable ? '' : ' | unavailable'}`);
const adb = (f: string) => parseDevicesList(text(f)).map((d) => [d.serial, d.state, d.model ?? null, d.emulatorPort]);
/** The named nodes of a dump as "role label = value" (value left out when there is none). */
const nodes = (f: string) =>
  parseDump(text(f)).snapshot.nodes.map((n) => `${n.role} ${JSON.stringify(n.label)}${n.value === null ? '' : ` = ${JSON.stringify(n.value)}`}`);
const screen = (f: string) => {
  const { widthPt, heightPt } = parseDump(text(f)).snapshot.screen;
  return [widthPt, heightPt];
};
const pm = (f: string, code: number) => pmPermissionRefusal(text(f), code)?.kind ?? null;

const SAMPLES: Record<string, Sample> = {
  // simctl list devices -j
  'simctl-list-devices.bitrise-go-xcode.json': {
    tool: 'simctl (Xcode 14)',
    os: 'iOS 13.7, 16.0',
    check: (f) => {
      const all = sims(f);
      expect(all).toHaveLength(35);
      expect(all.filter((s) => s.includes('iOS 13.7'))).toHaveLength(13);
      expect(all).toContain('Bitrise iOS default | iPhone 6s | iOS 13.7 | Shutdown');
      expect(all).toContain('iPad Pro (12.9-inch) (4th generation) | iPad Pro (12.9-inch) (4th generation) | iOS 13.7 | Shutdown');
      expect(all).toContain('iPad Pro (9.7-inch) | iPad Pro (9.7-inch) | iOS 16.0 | Shutdown');
      expect(all).toContain('iPhone SE (3rd generation) | iPhone SE (3rd generation) | iOS 16.0 | Shutdown');
      // Every simulator not renamed by its owner reads as its device type's Xcode name.
      for (const s of all.filter((s) => !s.startsWith('Bitrise'))) expect(s.split(' | ')[1]).toBe(s.split(' | ')[0]);
    },
  },
  'simctl-list-devices-booted.ios17.skip-devicescommand.json': {
    tool: 'simctl (Xcode 15)',
    os: 'iOS 17.0',
    check: (f) => expect(sims(f)).toEqual(['iPhone 14 | iPhone 14 | iOS 17.0 | Booted']),
  },
  'simctl-list-devices.xcode16_4.ios17_2-18_5.applesim-test.json': {
    tool: 'simctl (Xcode 16.4)',
    os: 'iOS 17.2, 18.5',
    check: (f) => expect(sims(f)).toEqual(['iPhone 15 Pro | iPhone 15 Pro | iOS 17.2 | Shutdown', 'iPhone 14 | iPhone 14 | iOS 18.5 | Booted']),
  },
  'simctl-list-devices.xcode26_1.dotnet-macios.json': {
    tool: 'simctl (Xcode 26.1)',
    os: 'iOS 26.0, 26.1',
    check: (f) =>
      expect(sims(f)).toEqual([
        'iPhone 17 Pro | iPhone 17 Pro | iOS 26.0 | Shutdown | unavailable',
        'iPhone 11 - iOS 26.1 | iPhone 11 | iOS 26.1 | Shutdown',
        'iPad Pro 13-inch (M5) | iPad Pro 13-inch (M5) | iOS 26.1 | Shutdown',
        'iPad Pro 11-inch (M5) | iPad Pro 11-inch (M5) | iOS 26.1 | Shutdown',
      ]),
  },
  // simctl appinfo / launch
  'simctl-appinfo.mademao-test.txt': {
    tool: 'simctl (older Xcode)',
    os: 'iOS (unstated)',
    check: (f) => {
      const info = parseOpenStep(text(f)) as Record<string, unknown>;
      expect(info).toMatchObject({ CFBundleIdentifier: '-23.Test', CFBundleVersion: '1', ApplicationType: 'User', GroupContainers: {}, SBAppTags: [] });
      expect(info.Path).toMatch(/\/Test\.app$/);
      expect(info.CFBundleShortVersionString).toBeUndefined();
    },
  },
  'simctl-appinfo.neondrift-run-variant.txt': {
    tool: 'simctl (Xcode 26)',
    os: 'iOS 26.5',
    check: (f) => {
      const info = parseOpenStep(text(f)) as Record<string, unknown>;
      expect(info.CFBundleIdentifier).toBe('com.DefaultCompany.NeonDrift.run.1782462220.97664');
      expect(info.Path).toMatch(/\/NeonDrift\.run\.1782462220\.97664\.app$/);
    },
  },
  'simctl-launch.neondrift.txt': { tool: 'simctl (Xcode 26)', os: 'iOS 26.5', check: (f) => expect(launchedPid(text(f))).toBe(1119) },
  // idb and AXe accessibility
  'idb-describe-all-flat.calendar.automobile-test.json': {
    tool: 'idb',
    os: 'iOS 17/18',
    check: (f) => {
      expect(screen(f)).toEqual([393, 852]);
      expect(nodes(f)).toEqual(['application "Calendar"', `heading "What's New in Calendar"`, 'button "Continue"']);
    },
  },
  'idb-describe-all-flat.contacts.automobile-test.json': {
    tool: 'idb',
    os: 'iOS 17/18',
    check: (f) => expect(nodes(f)).toEqual(['application "Contacts"', 'text "John Appleseed"', 'text "Kate Bell"']),
  },
  'idb-describe-all-flat.settings.automobile-test.json': {
    tool: 'idb',
    os: 'iOS 17/18',
    check: (f) =>
      expect(nodes(f)).toEqual([
        'application "Settings"',
        // Empty: "Search" is the placeholder, the field's name.
        'textfield "Search"',
        'button "Apple Account, Sign in to access your iCloud data, the App Store, Apple services, and more."',
      ]),
  },
  'idb-describe-all.empty-sentinel.mint.json': {
    tool: 'idb (stale companion)',
    os: 'iOS (unstated)',
    check: (f) => expect(isEmptySentinel(text(f))).toBe(true),
  },
  'axe-describe-ui.axe1.8.0-ios18.5-contacts-search.trailblaze.json': {
    tool: 'AXe 1.8.0',
    os: 'iOS 18.5',
    check: (f) => {
      expect(screen(f)).toEqual([402, 874]);
      expect(nodes(f)).toEqual(['application "Contacts"', 'textfield "Search"', 'button "Dictate"', 'image "Search"']);
    },
  },
  'simuse-describe-ui.softkeyboard-qwerty.raw.json': {
    tool: 'AXe (via sim-use)',
    os: 'iOS 18/26',
    check: (f) => {
      const all = nodes(f);
      expect(screen(f)).toEqual([402, 874]);
      // The navigation bar's search field is a GenericElement with subrole AXSearchField.
      expect(all.slice(0, 3)).toEqual(['application "LINE Dev"', 'button "戻る"', 'textfield "Search"']);
      // The software keyboard's keys come as buttons, with the suggestion bar's words before them.
      for (const k of ['Q', 'W', 'E', 'R', 'T', 'Y', 'shift', 'delete', 'space', 'search']) expect(all).toContain(`button "${k}"`);
      expect(all).toContain('button "次のキーボード" = "日本語かな"');
    },
  },
  'simuse-describe-ui.softkeyboard-kana.raw.json': {
    tool: 'AXe (via sim-use)',
    os: 'iOS 18/26',
    check: (f) => {
      const all = nodes(f);
      expect(all[2]).toBe('textfield "Search"');
      for (const k of ['あ', 'か', 'さ', '削除']) expect(all).toContain(`button "${k}"`);
    },
  },
  'simuse-describe-ui.softkeyboard-emoji.raw.json': {
    tool: 'AXe (via sim-use)',
    os: 'iOS 18/26',
    check: (f) => {
      const all = nodes(f);
      expect(all[2]).toBe('textfield "Search"');
      expect(all).toContain('heading "FREQUENTLY USED"');
      expect(all).toContain('button "😂"');
    },
  },
  // AXe CLI
  'axe-golden.version.stdout.txt': {
    tool: 'AXe (staging build)',
    os: 'Xcode 26.5 / iOS 26.5',
    check: (f) => expect(readAxeVersion(text(f))).toEqual({ kind: 'build', label: 'staging-main-58-51cfaf7-1-g52a7bff-dirty' }),
  },
  'axe-golden.help-describe-ui.stdout.txt': {
    tool: 'AXe (staging build)',
    os: 'Xcode 26.5 / iOS 26.5',
    check: (f) => expect(axeFeatures('', text(f)).hitTest).toBe(true),
  },
  'axe-golden.help-touch.stdout.txt': {
    tool: 'AXe (staging build)',
    os: 'Xcode 26.5 / iOS 26.5',
    check: (f) => expect(axeFeatures(text(f), '').press).toBe(true),
  },
  'axe-golden.help-tap.stdout.txt': {
    tool: 'AXe (staging build)',
    os: 'Xcode 26.5 / iOS 26.5',
    // tap's help offers neither a held touch nor a hit test: both are asked of their own commands.
    check: (f) => expect(axeFeatures(text(f), text(f))).toEqual({ press: false, hitTest: false }),
  },
  // adb devices
  'adb-devices-l.emulator-arm64.skip-devicescommand.txt': {
    tool: 'adb',
    os: 'Android emulator (arm64)',
    check: (f) => expect(adb(f)).toEqual([['emulator-5554', 'device', 'sdk_gphone64_arm64', 5554]]),
  },
  'adb-devices-l.emulator-plus-samsung-a34.txt': {
    tool: 'adb',
    os: 'Android emulator + Samsung A34',
    check: (f) =>
      expect(adb(f)).toEqual([
        ['emulator-5554', 'device', 'sdk_gphone64_arm64', 5554],
        ['RFCWA0FXXXX', 'device', 'SM_A346E', null],
      ]),
  },
  'adb-devices-l.pixel5-plus-emulator.prefedit.txt': {
    tool: 'adb (macOS)',
    os: 'Pixel 5 + emulator',
    check: (f) =>
      expect(adb(f)).toEqual([
        ['0A281FDD4001LR', 'device', 'Pixel_5', null],
        ['emulator-5554', 'device', 'sdk_gphone64_arm64', 5554],
      ]),
  },
  'adb-devices-l.unauthorized-pixel5-plus-emulator.prefedit.txt': {
    tool: 'adb (macOS)',
    os: 'Pixel 5 + emulator',
    check: (f) => {
      const [phone, emulator] = parseDevicesList(text(f));
      expect([phone?.serial, phone?.state, emulator?.state]).toEqual(['0A281FDD4001LR', 'unauthorized', 'device']);
      expect(stateHealth(phone!)).toMatchObject({ ready: false, reason: expect.stringMatching(/unauthorized/) });
    },
  },
  'adb-devices.pixel-short.typevera.txt': {
    tool: 'adb',
    os: 'Pixel (Android 12+)',
    check: (f) => expect(adb(f)).toEqual([['2A181FDH200CWB', 'device', null, null]]),
  },
  // wm
  'wm-size.override.awesome-adb.txt': {
    tool: 'wm',
    os: 'Android (unstated)',
    check: (f) => expect(parseWmSize(text(f))).toEqual({ width: 480, height: 1024 }),
  },
  'wm-density.override.awesome-adb.txt': { tool: 'wm', os: 'Android (unstated)', check: (f) => expect(parseWmDensity(text(f))).toBe(160) },
  'wm-size-density.combined.pixel8.txt': {
    tool: 'wm',
    os: 'Android 14 (Pixel 8)',
    check: (f) => expect([parseWmSize(text(f)), parseWmDensity(text(f))]).toEqual([{ width: 1080, height: 2400 }, 420]),
  },
  'wm-size-density.combined.nubia-android16.txt': {
    tool: 'wm',
    os: 'Android 16 (Nubia)',
    check: (f) => expect([parseWmSize(text(f)), parseWmDensity(text(f))]).toEqual([{ width: 1264, height: 2800 }, 560]),
  },
  // dumpsys
  'dumpsys-activity.android10-oneplus5t.zygote-blog.txt': {
    tool: 'dumpsys',
    os: 'Android 10 (OnePlus 5T)',
    check: (f) => expect(parseResumedPackage(text(f))).toBe('com.zygote.insight'),
  },
  'dumpsys-activity.api35plus-launcher.adbjson-doc.txt': {
    tool: 'dumpsys',
    os: 'Android 15/16 (Pixel)',
    check: (f) => expect(parseResumedPackage(text(f))).toBe('com.google.android.apps.nexuslauncher'),
  },
  // monkey
  'monkey-launched.adaway-pixel.txt': { tool: 'monkey', os: 'Android 10+ (Pixel)', check: (f) => expect(monkeyFailure(text(f))).toBeNull() },
  'monkey-no-activities.systemui.txt': {
    tool: 'monkey',
    os: 'Android 10+',
    check: (f) => expect(monkeyFailure(text(f))).toMatch(/no launcher activity/),
  },
  'monkey-syskeys-refusal.airtest-cndaqiang.txt': {
    tool: 'monkey',
    os: 'Android (emulator without keys)',
    check: (f) => expect(monkeyFailure(text(f))).toBe('monkey said: SYS_KEYS has no physical keys but with factor 2.0%.'),
  },
  // uiautomator
  'uiautomator-dump.pixel-1080x2400.typevera-login.exec-out.txt': {
    tool: 'uiautomator',
    os: 'Android 12+ (Pixel)',
    check: (f) => {
      const xml = withScreenSize(uiDumpXml(text(f)), { width: 1080, height: 2400 });
      const { snapshot } = parseDump(xml, { format: 'uiautomator-xml', density: 2.625 });
      expect([snapshot.screen.widthPt, snapshot.screen.heightPt]).toEqual([411.4, 914.3]);
      const named = snapshot.nodes.filter((n) => n.label).map((n) => `${n.role} ${JSON.stringify(n.label)}${n.value === null ? '' : ` = ${n.value}`}`);
      // The field shows its hint as its text (text = hint): named by it, empty.
      expect(named).toContain('textfield "Email Address"');
      expect(named).toContain('button "Navigate up"');
      expect(named).toContain('button "Continue with Email"');
      expect(named).toContain('text "Welcome Back!"');
    },
  },
  'uiautomator-error.idle.txt': {
    tool: 'uiautomator',
    os: 'Android 16 (Nubia)',
    check: (f) => expect(() => uiDumpXml(text(f))).toThrow(/uiautomator printed no hierarchy: ERROR: could not get idle state/),
  },
  'uiautomator-error.null-root.txt': {
    tool: 'uiautomator',
    os: 'Android (unstated)',
    check: (f) => expect(() => uiDumpXml(text(f))).toThrow(/null root node returned by UiTestAutomationBridge/),
  },
  // screencap
  'screencap.clean.bin': {
    tool: 'screencap',
    os: 'Android (control)',
    check: (f) => expect(pngSize(splitScreencap(bytes(f)).png)).toEqual({ width: 4, height: 4 }),
  },
  'screencap.multi-display-warning-prefix.bin': {
    tool: 'screencap',
    os: 'Android (several displays: foldable, MuMu, Oppo Find N6)',
    check: (f) => {
      const { png, warning } = splitScreencap(bytes(f));
      expect(pngSize(png)).toEqual({ width: 4, height: 4 });
      expect(warning).toMatch(/^\[Warning\] Multiple displays were found, but no display id was specified!/);
    },
  },
  // pm grant
  'pm-grant.android14-permissionservice.isnt-requested.COMPOSED.txt': {
    tool: 'pm',
    os: 'Android 14+',
    check: (f) => expect(pm(f, 255)).toBe('not-requested'),
  },
  'pm-grant.isnt-requested.stderr-as-published.txt': { tool: 'pm', os: 'Android 14+', check: (f) => expect(pm(f, 1)).toBe('not-requested') },
  'pm-grant.android14-not-changeable.mathprobe.txt': { tool: 'pm', os: 'Android 14+', check: (f) => expect(pm(f, 255)).toBe('not-changeable') },
  'pm-grant.xiaomi-no-grant-runtime-permissions.gkd.txt': {
    tool: 'pm',
    os: 'Android (Xiaomi HyperOS)',
    check: (f) => expect(pm(f, 255)).toBe('shell-not-allowed'),
  },
};

const SAMPLE_FILES = readdirSync(DIR).filter((f) => f !== 'README.md' && f !== 'PROVENANCE.md');

describe('the conformance corpus: every recorded output read as a person reads it', () => {
  it('has a hand-written reading for every sample in the folder, and a sample for every reading', () => {
    expect(SAMPLE_FILES.toSorted()).toEqual(Object.keys(SAMPLES).toSorted());
  });

  for (const [file, sample] of Object.entries(SAMPLES)) {
    it(`${sample.tool} on ${sample.os}: ${file}`, () => sample.check(file));
  }
});
