// What the iOS backend needs of its host: Xcode's `xcrun simctl`, and a tree-and-input tool (AXe,
// or idb with its companion); the native frame helper is optional (without it screenshots are
// polled).
//
// Cannot be exercised for real here: simfleet is developed on Linux, where no Xcode, simulator,
// AXe or idb runs. These checks are tested against that real absence, and against the doubles in
// test/doubles/ios (xcrun.mjs answers `--find simctl`; axe.mjs prints recorded `--version` and help
// texts; idb.mjs answers its help as fb-idb does), with the platform set to darwin.
import { executable, findExecutable, HOMEBREW_BIN, type HostCheck, type ProbeHost } from '../../host/probe.js';
import { MAC_HINT } from './provider.js';
import { Simctl } from './simctl.js';
import { findUiTool, type UiToolKind } from './ui-tool.js';

export interface IosCheckSettings {
  /** xcrun as the worker would run it, or undefined when the ios backend is off. */
  xcrun: string | undefined;
  /** The SIMFLEET_XCRUN setting as given: "auto", "none" or a path. */
  xcrunSetting: string;
  uiTool: 'auto' | UiToolKind;
  uiToolPath: string | undefined;
  frameHelper: string | undefined;
}

const XCODE_FIX = 'install Xcode (App Store), open it once, then `sudo xcode-select -s /Applications/Xcode.app/Contents/Developer`';
const FIX: Record<'axe' | 'idb' | 'idb-companion', string> = {
  axe: 'brew install cameroncooke/axe/axe',
  idb: 'pip3 install fb-idb',
  'idb-companion': 'brew install facebook/fb/idb-companion',
};

export async function iosChecks(s: IosCheckSettings, host: ProbeHost): Promise<HostCheck[]> {
  const configured = s.xcrun !== undefined;
  const offMac = host.platform !== 'darwin' ? ` (iOS simulators need macOS; this host runs ${host.platform})` : '';
  const [simctl, axe, idb, companion, frames] = await Promise.all([
    simctlCheck(s, host, configured),
    uiToolCheck('axe', s, host, offMac),
    uiToolCheck('idb', s, host, offMac),
    companionCheck(host, offMac),
    frameHelperCheck(s.frameHelper),
  ]);
  // One UI tool is enough: the one the settings pick, else the first that works, else every one
  // (none works, and each says how to install it).
  const picked: string[] =
    s.uiTool === 'axe'
      ? ['axe']
      : s.uiTool === 'idb'
        ? ['idb', 'idb-companion']
        : axe.status === 'ok'
          ? ['axe']
          : idb.status === 'ok'
            ? ['idb', 'idb-companion']
            : ['axe', 'idb', 'idb-companion'];
  const need = (c: HostCheck): HostCheck => ({ ...c, needed: configured && picked.includes(c.id) });
  return [simctl, need(axe), need(idb), need(companion), frames];
}

async function simctlCheck(s: IosCheckSettings, host: ProbeHost, configured: boolean): Promise<HostCheck> {
  const base = { id: 'xcrun-simctl', title: "Xcode's xcrun simctl", area: 'ios', needed: configured } as const;
  if (s.xcrunSetting === 'none') return { ...base, status: 'skipped', detail: 'turned off (SIMFLEET_XCRUN=none)' };
  if (host.platform !== 'darwin') {
    return { ...base, status: 'missing', detail: `this host runs ${host.platform}: xcrun was not run (${MAC_HINT})`, fix: `on a Mac: ${XCODE_FIX}` };
  }
  const xcrun = s.xcrun ?? 'xcrun';
  const at = xcrun.includes('/') ? ((await executable(xcrun)) ? xcrun : undefined) : await findExecutable(xcrun, host.env);
  if (!at) return { ...base, status: 'missing', detail: `${xcrun} is not ${xcrun.includes('/') ? 'an executable' : 'on the PATH'}`, fix: XCODE_FIX };
  try {
    return { ...base, status: 'ok', detail: `simctl at ${await new Simctl(at).locate()}` };
  } catch (err) {
    return { ...base, status: 'broken', detail: (err as Error).message.slice(0, 500), fix: XCODE_FIX };
  }
}

async function uiToolCheck(kind: UiToolKind, s: IosCheckSettings, host: ProbeHost, offMac: string): Promise<HostCheck> {
  const base = { id: kind, title: kind === 'axe' ? 'AXe (iOS tree and touch)' : 'idb (iOS tree and touch)', area: 'ios', needed: false } as const;
  const given = s.uiToolPath && (s.uiTool === kind || (s.uiTool === 'auto' && (/^idb/.test(s.uiToolPath.split('/').pop() ?? '') ? 'idb' : 'axe') === kind));
  const path = given ? s.uiToolPath : await findExecutable(kind, host.env, HOMEBREW_BIN);
  if (!path || !(await executable(path))) {
    return {
      ...base,
      status: 'missing',
      detail: `${given ? `${path} is not an executable` : `${kind} is not on the PATH or in Homebrew's folders`}${offMac}`,
      fix: FIX[kind],
    };
  }
  const found = await findUiTool(kind, path, host.env.PATH);
  if ('tool' in found) return { ...base, status: 'ok', detail: found.tool.label, ...(found.tool.version ? { version: found.tool.version } : {}) };
  return { ...base, status: 'broken', detail: found.missing, fix: found.hint };
}

async function companionCheck(host: ProbeHost, offMac: string): Promise<HostCheck> {
  const base = { id: 'idb-companion', title: "idb's companion (idb_companion)", area: 'ios', needed: false } as const;
  const path = await findExecutable('idb_companion', host.env, HOMEBREW_BIN);
  if (!path) return { ...base, status: 'missing', detail: `idb_companion is not on the PATH or in Homebrew's folders${offMac}`, fix: FIX['idb-companion'] };
  // Its version is not asked: no output of it has been recorded to read it by.
  return { ...base, status: 'ok', detail: `at ${path}` };
}

async function frameHelperCheck(path: string | undefined): Promise<HostCheck> {
  const base = { id: 'ios-frame-helper', title: 'the native frame helper (native/ios-frames)', area: 'ios', needed: false } as const;
  if (!path) return { ...base, status: 'skipped', detail: 'not configured (SIMFLEET_IOS_FRAME_HELPER): simulator frames are polled screenshots' };
  if (await executable(path)) return { ...base, status: 'ok', detail: `at ${path}` };
  return {
    ...base,
    status: 'broken',
    detail: `${path} is not an executable: frames fall back to polled screenshots`,
    fix: 'build it (native/ios-frames/README.md) or fix SIMFLEET_IOS_FRAME_HELPER',
  };
}
