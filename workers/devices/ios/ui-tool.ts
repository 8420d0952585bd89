// The tree-and-input helper the operator installs next to Xcode: AXe or idb. simctl has neither an
// accessibility tree nor touch input, so without one of them the backend is unavailable.
//
// Versions. AXe prints its version (`axe --version`); simfleet needs 1.4.0 or later: 1.1.1 pinned
// the idb frameworks it embeds because earlier builds failed on newer Xcode releases (its
// CHANGELOG), and 1.4.0 made `touch --down --up --delay` a real press-and-hold, which is how a long
// press is played. fb-idb's CLI has no --version flag (idb/cli/main.py defines none), so for idb the
// two features simfleet relies on are checked in its own help text instead: `ui tap --duration`
// (long press) and `ui describe-all` (`--nested` is used when offered, for the element hierarchy).
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { DeviceError, type Point } from '../backend.js';
import { run, ToolFailure } from './run.js';
import { AXE_POINT_SINCE, axeFeatures, readAxeVersion } from './axe-version.js';
import { AXE, AXE_POINT, IDB, type ToolArgv } from './ui-commands.js';

export type UiToolKind = 'axe' | 'idb';

export const AXE_MINIMUM = '1.4.0';
export const UI_TOOL_HINT =
  "install AXe (`brew install cameroncooke/axe/axe`, 1.4.0 or later), or idb (`brew install facebook/fb/idb-companion` and `pip3 install fb-idb`), on the worker's PATH or at the path given in the ios backend settings";

/** Where Homebrew puts tools, for a worker started by launchd with a bare PATH. */
const EXTRA_DIRS = ['/opt/homebrew/bin', '/usr/local/bin'];

export type ToolProbe = { tool: UiTool } | { missing: string; hint: string };

/** "AXe 1.6.0", "v1.6.0", "1.6.0" → "1.6.0". */
export function parseVersion(text: string): string | null {
  return /(?:^|[^\d.])v?(\d+\.\d+(?:\.\d+)?)(?![\d.])/.exec(text)?.[1] ?? null;
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function onPath(name: string, pathVar: string | undefined): Promise<string | undefined> {
  for (const dir of [...(pathVar ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS]) {
    if (await executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Finds the configured tool (or, with 'auto', AXe then idb) and checks it is recent enough. */
export async function findUiTool(choice: 'auto' | UiToolKind, path: string | undefined, pathVar = process.env.PATH): Promise<ToolProbe> {
  const kinds: UiToolKind[] = choice === 'auto' ? (path ? [/^idb/.test(path.split('/').pop() ?? '') ? 'idb' : 'axe'] : ['axe', 'idb']) : [choice];
  const misses: string[] = [];
  for (const kind of kinds) {
    const at = path ?? (await onPath(kind, pathVar));
    if (!at || !(await executable(at))) {
      misses.push(path ? `${kind} is not an executable at ${path}` : `${kind} is not on the PATH`);
      continue;
    }
    const probe = kind === 'axe' ? await probeAxe(at) : await probeIdb(at);
    if ('tool' in probe || path || choice !== 'auto') return probe;
    misses.push(probe.missing);
  }
  return { missing: misses.join('; '), hint: UI_TOOL_HINT };
}

async function probeAxe(path: string): Promise<ToolProbe> {
  let text: string;
  try {
    const { stdout, stderr } = await run(path, ['--version'], { timeoutMs: 15_000 });
    text = `${stdout.toString('utf8')}\n${stderr}`;
  } catch (err) {
    return { missing: `\`${path} --version\` failed: ${(err as Error).message}`, hint: UI_TOOL_HINT };
  }
  const read = readAxeVersion(text);
  if (!read) return { missing: `\`${path} --version\` printed no version (${JSON.stringify(text.trim().slice(0, 80))})`, hint: UI_TOOL_HINT };
  if (read.kind === 'build') return probeAxeBuild(path, read.label);
  const { version } = read;
  if (compareVersions(version, AXE_MINIMUM) < 0) {
    return {
      missing: `AXe ${version} at ${path} is older than ${AXE_MINIMUM}`,
      hint: `upgrade it: \`brew upgrade axe\` (1.4.0 made press-and-hold reliable; older builds fail on newer Xcode)`,
    };
  }
  const point = compareVersions(version, AXE_POINT_SINCE) >= 0;
  return { tool: new UiTool('axe', path, version, `AXe ${version} at ${path}${point ? '' : ' (no hit test before 1.6.0)'}`, point ? AXE_POINT : AXE, false) };
}

/**
 * A staging or source build of AXe: its version string names no release, so the two things
 * simfleet needs of it are asked of its help text, as for idb: a held touch (`touch --delay`) and,
 * optionally, the hit test (`describe-ui --point`).
 */
async function probeAxeBuild(path: string, label: string): Promise<ToolProbe> {
  const help = (args: string[]) =>
    run(path, [...args, '--help'], { timeoutMs: 15_000 }).then(
      ({ stdout }) => stdout.toString('utf8'),
      () => '',
    );
  const [touch, describe] = await Promise.all([help(['touch']), help(['describe-ui'])]);
  const features = axeFeatures(touch, describe);
  if (!features.press) {
    return {
      missing: `AXe build ${label} at ${path} has no \`touch --down --up --delay\` (needed for long presses)`,
      hint: 'install a release of AXe 1.4.0 or later: `brew install cameroncooke/axe/axe`',
    };
  }
  const point = features.hitTest;
  const what = `AXe ${label} (a staging or source build; features read from its help) at ${path}${point ? '' : ' (no hit test: describe-ui has no --point)'}`;
  return { tool: new UiTool('axe', path, label, what, point ? AXE_POINT : AXE, false) };
}

async function probeIdb(path: string): Promise<ToolProbe> {
  // fb-idb has no --version; a build that grows one will be reported with it.
  const version = await run(path, ['--version'], { timeoutMs: 15_000 }).then(
    ({ stdout, stderr }) => parseVersion(`${stdout.toString('utf8')} ${stderr}`),
    () => null,
  );
  const help = async (args: string[]) =>
    run(path, [...args, '--help'], { timeoutMs: 20_000 }).then(
      ({ stdout }) => stdout.toString('utf8'),
      (err: Error) => `FAILED ${err.message}`,
    );
  const [tap, describe] = await Promise.all([help(['ui', 'tap']), help(['ui', 'describe-all'])]);
  if (tap.startsWith('FAILED') || describe.startsWith('FAILED')) {
    return {
      missing: `idb at ${path} does not answer \`idb ui tap --help\` / \`idb ui describe-all --help\` (${(tap.startsWith('FAILED') ? tap : describe).slice(7, 200)})`,
      hint: UI_TOOL_HINT,
    };
  }
  if (!tap.includes('--duration')) {
    return { missing: `idb at ${path} has no \`ui tap --duration\` (needed for long presses)`, hint: 'upgrade it: `pip3 install --upgrade fb-idb`' };
  }
  const nested = describe.includes('--nested');
  const label = `idb ${version ?? '(version not reported: fb-idb has no --version; features checked in its help)'} at ${path}`;
  return { tool: new UiTool('idb', path, version, label, IDB, nested) };
}

/** One installed helper, driving one simulator per call by udid. */
export class UiTool {
  constructor(
    readonly kind: UiToolKind,
    readonly path: string,
    readonly version: string | null,
    /** For the backend status: what was found, where. */
    readonly label: string,
    private readonly argv: ToolArgv,
    private readonly nested: boolean,
  ) {}

  get format(): 'axe-json' | 'idb-json' {
    return this.kind === 'axe' ? 'axe-json' : 'idb-json';
  }

  async describe(udid: string): Promise<string> {
    const { stdout } = await this.exec('read the accessibility tree', this.argv.describe(udid, this.nested), 30_000, undefined, 32 * 1024 * 1024);
    return stdout;
  }

  /** Whether this tool can tell what element is at a point (idb can, and AXe from 1.6.0). */
  get canDescribePoint(): boolean {
    return this.argv.describePoint !== undefined;
  }

  /** The element at a point, as the tool prints it (one element's JSON), for the hit test. */
  async describePoint(udid: string, p: Point): Promise<string> {
    if (!this.argv.describePoint)
      throw new DeviceError(
        'DEVICE_FAILED',
        `${this.kind} cannot describe the element at a point`,
        'upgrade AXe to 1.6.0 or later, or install idb, for hit tests',
      );
    const { stdout } = await this.exec('describe the element at a point', this.argv.describePoint(udid, p), 15_000);
    return stdout;
  }

  async tap(udid: string, p: Point): Promise<void> {
    await this.exec('tap', this.argv.tap(udid, p), 15_000);
  }

  async press(udid: string, p: Point, holdMs: number): Promise<void> {
    // AXe's `touch --delay` refuses more than 10 s (Touch.swift's validate()).
    if (this.kind === 'axe' && holdMs > 10_000)
      throw new DeviceError('VALIDATION_FAILED', `AXe holds a touch for at most 10 s, not ${Math.round(holdMs / 100) / 10} s`, 'press for 10 s or less');
    await this.exec('press and hold', this.argv.press(udid, p, holdMs / 1000), 15_000 + holdMs);
  }

  async swipe(udid: string, from: Point, to: Point, durationMs: number, deltaPt: number): Promise<void> {
    await this.exec('swipe', this.argv.swipe(udid, from, to, durationMs / 1000, deltaPt), 15_000 + durationMs);
  }

  async type(udid: string, text: string): Promise<void> {
    const { args, input } = this.argv.type(udid, text);
    await this.exec('type', args, 15_000 + text.length * 50, input);
  }

  async key(udid: string, code: number): Promise<void> {
    await this.exec('press a key', this.argv.key(udid, code), 15_000);
  }

  async home(udid: string): Promise<void> {
    await this.exec('press the home button', this.argv.home(udid), 15_000);
  }

  private async exec(verb: string, args: string[], timeoutMs: number, input?: string, maxBytes?: number): Promise<{ stdout: string }> {
    try {
      const { stdout } = await run(this.path, args, { timeoutMs, input, maxBytes });
      return { stdout: stdout.toString('utf8') };
    } catch (err) {
      if (!(err instanceof ToolFailure)) throw err;
      if (err.kind === 'missing') throw new DeviceError('DEVICE_FAILED', `could not ${verb}: ${this.kind} is no longer at ${this.path}`, UI_TOOL_HINT);
      const hint =
        err.kind === 'timeout'
          ? "the simulator's accessibility or HID service may be stuck: shut the simulator down and prepare the device again"
          : this.kind === 'idb'
            ? 'check that idb_companion can reach the simulator: `idb list-targets` should list it'
            : 'run the same axe command by hand to see its full message; `axe list-simulators` should list the simulator';
      throw new DeviceError('DEVICE_FAILED', `could not ${verb}: ${err.message}`, hint);
    }
  }
}
