// The host checks `simfleet doctor` prints and the worker sends in its hello: each against what
// this machine really has (Chromium, Tesseract, user namespaces; no adb, emulator, Xcode, AXe or
// idb), and against stand-ins that print real recorded outputs of the tools (test/fixtures/
// host-checks/, test/doubles/). No Mac or KVM is here: the iOS and Android checks' found paths run
// only against the doubles.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clockCheck } from '../../server/cli/doctor.js';
import { initState } from '../doubles/android/screen.mjs';
import { parseAdbVersion, androidChecks } from '../../workers/devices/android/checks.js';
import { iosChecks, type IosCheckSettings } from '../../workers/devices/ios/checks.js';
import { planBackends } from '../../workers/devices/registry.js';
import { chromiumCheck, sandboxCheck, sandboxFix } from '../../workers/devices/web/checks.js';
import { diskCheck, memoryCheck, summariseChecks, type HostCheck } from '../../workers/host/checks.js';
import { firstVersion, type ProbeHost } from '../../workers/host/probe.js';
import { parseLangs, tesseractCheck } from '../../workers/understanding/ocr/check.js';
import { loadWorkerConfig } from '../../workers/config.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/host-checks/', import.meta.url));
const recorded = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const ADB_DOUBLE = fileURLToPath(new URL('../doubles/android/adb.mjs', import.meta.url));
const IOS_DOUBLES = fileURLToPath(new URL('../doubles/ios/', import.meta.url));
const AXE_STAGING = readFileSync(fileURLToPath(new URL('../fixtures/device-outputs/axe-golden.version.stdout.txt', import.meta.url)), 'utf8').trim();

const linux = (env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): ProbeHost => ({ platform: 'linux', uid, env });

/** A folder of stand-in executables: each prints a recorded file and exits with the code given. */
function standIns(tools: Record<string, { print?: Record<string, string>; exit?: number } | string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sf-checks-'));
  for (const [name, spec] of Object.entries(tools)) {
    const path = join(dir, name);
    if (typeof spec === 'string') {
      symlinkSync(spec, path);
      continue;
    }
    const cases = Object.entries(spec.print ?? {})
      .map(([arg, file]) => `  ${arg}) /bin/cat '${join(FIXTURES, file)}'; exit ${spec.exit ?? 0};;`)
      .join('\n');
    writeFileSync(path, `#!/bin/sh\ncase "$1" in\n${cases}\n  *) exit ${spec.exit ?? 0};;\nesac\n`);
    chmodSync(path, 0o755);
  }
  return dir;
}

const byId = (checks: HostCheck[], id: string) => checks.find((c) => c.id === id)!;

describe('reading what the tools print (recorded outputs)', () => {
  it("reads Chromium's version from `chromium --version`", () => {
    expect(firstVersion(recorded('chromium-version.debian12.txt'))).toBe('156.0.8078.129');
  });

  it("reads Tesseract's version and languages, and tells a Tesseract without English data", () => {
    expect(firstVersion(recorded('tesseract-version.tesseract-5.3.0-debian12.txt').split('\n')[0]!)).toBe('5.3.0');
    expect(parseLangs(recorded('tesseract-list-langs.debian12.txt'))).toEqual(['eng', 'osd']);
    expect(parseLangs(recorded('tesseract-list-langs.osd-only.debian12.txt'))).toEqual(['osd']);
    expect(parseLangs('tesseract: command not found')).toBeUndefined();
  });

  it('reads the platform-tools and protocol versions from `adb version`', () => {
    const text = readFileSync(fileURLToPath(new URL('../doubles/android/fixtures/adb-version.txt', import.meta.url)), 'utf8');
    expect(parseAdbVersion(text)).toBe('36.0.0-13206524 (adb 1.0.41)');
    expect(parseAdbVersion('adb: not found')).toBeUndefined();
  });

  it('names the sysctl that keeps user namespaces off, and the command that turns it on', () => {
    expect(sandboxFix({ maxUserNamespaces: '0' }).fix).toBe('sudo sysctl -w user.max_user_namespaces=15000');
    expect(sandboxFix({ unprivilegedUsernsClone: '0', maxUserNamespaces: '96367' }).fix).toBe('sudo sysctl -w kernel.unprivileged_userns_clone=1');
    expect(sandboxFix({ apparmorRestrict: '1', maxUserNamespaces: '96367' }).fix).toMatch(/^sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/);
    expect(sandboxFix({ maxUserNamespaces: '96367' }).cause).toMatch(/no sysctl explains it/);
  });
});

describe('the web checks', () => {
  it("finds this machine's Chromium with the version it prints", async () => {
    const printed = firstVersion(execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const c = await chromiumCheck(undefined, true, linux());
    expect(c).toMatchObject({ id: 'chromium', status: 'ok', needed: true, version: printed });
  });

  it('says missing with the install command when no browser is anywhere, and broken for a wrong SIMFLEET_CHROMIUM', async () => {
    const nowhere = { playwright: () => undefined, system: [['/nonexistent/chromium', 'nothing']] as const };
    expect(await chromiumCheck(undefined, true, linux(), nowhere)).toMatchObject({ status: 'missing', fix: 'sudo apt-get install -y chromium' });
    expect(await chromiumCheck(undefined, true, { ...linux(), platform: 'darwin' }, nowhere)).toMatchObject({ fix: 'brew install --cask google-chrome' });
    expect(await chromiumCheck('/nonexistent/chrome', true, linux())).toMatchObject({
      status: 'broken',
      detail: expect.stringContaining('SIMFLEET_CHROMIUM is /nonexistent/chrome'),
    });
  });

  it('makes a user namespace here, as nobody when root, and says a root worker runs Chromium without its sandbox', async () => {
    const c = await sandboxCheck(true, linux());
    expect(c.status).toBe('ok');
    if (process.getuid?.() === 0) {
      expect(c.detail).toMatch(/made one as uid 65534 .*--no-sandbox/);
      expect(c.needed).toBe(false); // as root the web backend does not use the sandbox
    }
  });

  it('says broken with the sysctl to change when unshare fails as it does with user.max_user_namespaces=0', async () => {
    const bin = standIns({ unshare: { print: { '--user': 'unshare-user.max-user-namespaces-0.txt' }, exit: 1 } });
    const c = await sandboxCheck(true, linux({ PATH: bin }, 1000), async () => ({ maxUserNamespaces: '0' }));
    expect(c).toMatchObject({ status: 'broken', needed: true, fix: 'sudo sysctl -w user.max_user_namespaces=15000' });
    expect(c.detail).toContain('unshare: unshare failed: No space left on device');
    expect(c.detail).toContain('Chromium will not start with its sandbox');
  });

  it('cannot tell without unshare, and says so rather than ok', async () => {
    expect(await sandboxCheck(true, linux({ PATH: '/nonexistent' }, 1000))).toMatchObject({
      status: 'skipped',
      detail: expect.stringMatching(/^could not tell/),
    });
  });
});

describe('text recognition', () => {
  it('finds Tesseract 5 with English data on this machine', async () => {
    expect(await tesseractCheck('tesseract', linux())).toMatchObject({ status: 'ok', version: '5.3.0', needed: true, detail: expect.stringContaining('eng') });
  });

  it('says missing with the install command, broken without English data, skipped when turned off', async () => {
    expect(await tesseractCheck('/nonexistent/tesseract', linux())).toMatchObject({
      status: 'missing',
      needed: true,
      fix: expect.stringMatching(/^sudo apt-get install -y tesseract-ocr tesseract-ocr-eng/),
    });
    const bin = standIns({
      tesseract: { print: { '--version': 'tesseract-version.tesseract-5.3.0-debian12.txt', '--list-langs': 'tesseract-list-langs.osd-only.debian12.txt' } },
    });
    expect(await tesseractCheck(join(bin, 'tesseract'), linux())).toMatchObject({
      status: 'broken',
      version: '5.3.0',
      detail: expect.stringContaining('no English data (eng.traineddata): it has osd'),
      fix: 'sudo apt-get install -y tesseract-ocr-eng',
    });
    expect(await tesseractCheck('none', linux())).toMatchObject({ status: 'skipped', needed: false });
  });
});

describe('the android checks (no adb or emulator here: the absence, and the adb double)', () => {
  it('lists adb, the emulator and the token file as missing, none needed, when SIMFLEET_ADB=auto finds no adb', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sf-home-'));
    const checks = await androidChecks({ adb: undefined, adbSetting: 'auto', emulatorTokenFile: undefined }, linux({ PATH: '/nonexistent', HOME: home }));
    expect(checks.map((c) => [c.id, c.status, c.needed])).toEqual([
      ['adb', 'missing', false],
      ['emulator', 'missing', false],
      ['emulator-console-token', 'missing', false],
    ]);
    expect(byId(checks, 'adb').fix).toBe('sudo apt-get install -y adb');
  });

  it('reads the version from the adb double and needs the token file once adb is configured', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sf-home-'));
    initState(home); // the double's simulated emulator lives in FAKE_ADB_STATE
    const checks = await androidChecks(
      { adb: ADB_DOUBLE, adbSetting: ADB_DOUBLE, emulatorTokenFile: undefined },
      linux({ ...process.env, HOME: home, FAKE_ADB_STATE: home }),
    );
    expect(byId(checks, 'adb')).toMatchObject({ status: 'ok', needed: true, version: '36.0.0-13206524 (adb 1.0.41)' });
    expect(byId(checks, 'emulator-console-token')).toMatchObject({ status: 'missing', needed: true });
    writeFileSync(join(home, '.emulator_console_auth_token'), 's3cr3t-token\n');
    const token = byId(
      await androidChecks(
        { adb: ADB_DOUBLE, adbSetting: ADB_DOUBLE, emulatorTokenFile: undefined },
        linux({ ...process.env, HOME: home, FAKE_ADB_STATE: home }),
      ),
      'emulator-console-token',
    );
    expect(token).toMatchObject({ status: 'ok', detail: expect.stringContaining('holds a token') });
    expect(JSON.stringify(token)).not.toContain('s3cr3t'); // the token is never said
  });

  it('says adb is broken when the configured one does not run', async () => {
    const checks = await androidChecks({ adb: '/nonexistent/adb', adbSetting: '/nonexistent/adb', emulatorTokenFile: undefined }, linux());
    expect(byId(checks, 'adb')).toMatchObject({ status: 'missing', needed: true, fix: expect.stringContaining('SIMFLEET_ADB') });
  });
});

describe('the ios checks (no Mac here: the absence on Linux, and the doubles as a Mac)', () => {
  const settings: IosCheckSettings = { xcrun: undefined, xcrunSetting: 'auto', uiTool: 'auto', uiToolPath: undefined, frameHelper: undefined };

  it('on Linux reports xcrun, AXe, idb and its companion missing with their install commands, none needed', async () => {
    const checks = await iosChecks(settings, linux({ PATH: '/nonexistent' }));
    expect(checks.map((c) => [c.id, c.status, c.needed, c.fix])).toEqual([
      ['xcrun-simctl', 'missing', false, expect.stringContaining('xcode-select -s')],
      ['axe', 'missing', false, 'brew install cameroncooke/axe/axe'],
      ['idb', 'missing', false, 'pip3 install fb-idb'],
      ['idb-companion', 'missing', false, 'brew install facebook/fb/idb-companion'],
      ['ios-frame-helper', 'skipped', false, undefined],
    ]);
  });

  it('as a Mac with the doubles: simctl found, AXe read from its recorded staging version and help, idb from its help', async () => {
    const state = mkdtempSync(join(tmpdir(), 'sf-ios-'));
    process.env.FAKE_XCRUN_STATE = state;
    writeFileSync(join(state, 'axe-version'), AXE_STAGING);
    const bin = standIns({ xcrun: `${IOS_DOUBLES}xcrun.mjs`, axe: `${IOS_DOUBLES}axe.mjs`, idb: `${IOS_DOUBLES}idb.mjs`, idb_companion: '/bin/true' });
    const mac: ProbeHost = { platform: 'darwin', uid: 501, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } };
    const checks = await iosChecks({ ...settings, xcrun: 'xcrun' }, mac);
    expect(byId(checks, 'xcrun-simctl')).toMatchObject({ status: 'ok', needed: true });
    expect(byId(checks, 'axe')).toMatchObject({ status: 'ok', needed: true, detail: expect.stringContaining('staging or source build') });
    expect(byId(checks, 'idb')).toMatchObject({ status: 'ok', needed: false }); // AXe works, so idb is not needed
    expect(byId(checks, 'idb-companion')).toMatchObject({ status: 'ok', needed: false });
  });

  it('needs every UI tool when the ios backend is on and none works, so doctor fails with each fix', async () => {
    const mac: ProbeHost = { platform: 'darwin', uid: 501, env: { PATH: '/nonexistent' } };
    const checks = await iosChecks({ ...settings, xcrun: 'xcrun' }, mac);
    expect(checks.filter((c) => c.needed).map((c) => [c.id, c.status])).toEqual([
      ['xcrun-simctl', 'missing'],
      ['axe', 'missing'],
      ['idb', 'missing'],
      ['idb-companion', 'missing'],
    ]);
  });
});

describe('which backends are configured, and the host resources', () => {
  it('turns backends on as the worker would: web by its devices, android by adb, ios on a Mac', () => {
    const config = loadWorkerConfig({ SIMFLEET_ADB: 'auto', SIMFLEET_XCRUN: 'auto' });
    const { plans } = planBackends(config, linux({ PATH: '/nonexistent' }));
    expect(plans.map((p) => [p.backend, p.configured])).toEqual([
      ['web', true],
      ['android', false],
      ['ios', false],
    ]);
    expect(plans[2]!.why).toBe('SIMFLEET_XCRUN auto: this host runs linux, not macOS');
    const mac = planBackends(loadWorkerConfig({ SIMFLEET_WEB_DEVICES: 'none', SIMFLEET_ADB: '/opt/adb' }), { platform: 'darwin', uid: 501, env: { PATH: '' } });
    expect(mac.plans.map((p) => [p.backend, p.configured])).toEqual([
      ['web', false],
      ['android', true],
      ['ios', true],
    ]);
  });

  it('says broken below 2 GiB of disk and 1 GiB of memory, and could not tell when the disk cannot be read', async () => {
    const facts = (disk: number, mem: number) => ({ freeDisk: async () => disk, freeMemory: () => mem, totalMemory: () => 8 * 1024 ** 3 });
    expect(await diskCheck('/data', facts(1.5 * 1024 ** 3, 4 * 1024 ** 3))).toMatchObject({
      status: 'broken',
      needed: true,
      detail: '1.5 GiB free under /data, below the 2.0 GiB devices need',
    });
    expect(await diskCheck('/data', facts(50 * 1024 ** 3, 0))).toMatchObject({ status: 'ok' });
    expect(memoryCheck(facts(0, 0.5 * 1024 ** 3))).toMatchObject({ status: 'broken', needed: true });
    expect(await diskCheck('/data', { ...facts(0, 0), freeDisk: async () => Promise.reject(new Error('EIO')) })).toMatchObject({
      status: 'skipped',
      needed: false,
    });
    expect(await diskCheck(join(mkdtempSync(join(tmpdir(), 'sf-disk-')), 'not', 'yet'))).toMatchObject({ status: 'ok' }); // a data dir not made yet
  });

  it("reads the clock against the gateway's Date header, within its whole-second resolution", () => {
    const at = Date.parse('2026-12-07T12:00:00.000Z');
    expect(clockCheck('Mon, 07 Dec 2026 12:00:00 GMT', at + 400, at + 600)).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^0\.0 s/) });
    expect(clockCheck('Mon, 07 Dec 2026 12:00:00 GMT', at + 30_000, at + 30_100)).toMatchObject({
      status: 'broken',
      needed: true,
      detail: expect.stringMatching(/^29\.6 s ahead of the gateway/),
    });
    expect(clockCheck(null, at, at)).toMatchObject({ status: 'skipped' });
  });

  it('summarises in one line what a configured backend lacks', () => {
    const c = (id: string, status: HostCheck['status'], needed: boolean): HostCheck => ({ id, title: id, area: 'host', status, needed, detail: '' });
    expect(summariseChecks([c('chromium', 'ok', true), c('adb', 'missing', false)])).toBe(
      '1 of 2 ok, nothing a configured backend needs is lacking; 1 missing for backends this host does not run',
    );
    expect(summariseChecks([c('chromium', 'missing', true), c('tesseract', 'ok', true)])).toMatch(
      /^1 of 2 ok; LACKING chromium \(missing\); `simfleet doctor`/,
    );
  });
});
