// The command lines of the two tree-and-input helpers, as their own sources define them:
//  AXe (cameroncooke/AXe, Sources/AXe/Commands/*.swift): `describe-ui --udid U` (from 1.6.0 also
//    `--point X,Y`, the element at a point: the hit test), `tap -x X -y Y`,
//    `touch -x X -y Y --down --up --delay S`, `swipe --start-x … --end-y … --duration S --delta D`,
//    `type --stdin`, `key <HID code>`, `button home`; coordinates in points, as Doubles.
//  idb (facebook/idb, idb/cli/commands/hid.py and accessibility.py): `ui describe-all --json
//    [--nested]`, `ui describe-point --json X Y` (the element at a point: the hit test), `ui tap X Y [--duration S]`, `ui swipe X1 Y1 X2 Y2 --duration S --delta D`,
//    `ui text TEXT`, `ui key CODE`, `ui button HOME`; argparse reads coordinates as ints (points).
// Neither has a touch-move primitive or several fingers: see touch-plan.ts for what that allows.
import type { Point } from '../backend.js';

export interface ToolArgv {
  describe(udid: string, nested: boolean): string[];
  /** The element at a point (a hit test); AXe before 1.6.0 has no such command, so it has none. */
  describePoint?(udid: string, p: Point): string[];
  tap(udid: string, p: Point): string[];
  /** A touch held for `seconds` at one point (a long press). */
  press(udid: string, p: Point, seconds: number): string[];
  swipe(udid: string, from: Point, to: Point, seconds: number, delta: number): string[];
  /** The text travels on stdin for AXe (so a leading "-" is not read as an option); idb takes it after "--". */
  type(udid: string, text: string): { args: string[]; input?: string };
  key(udid: string, code: number): string[];
  home(udid: string): string[];
}

/** AXe takes Doubles: two decimals is a hundredth of a point. */
const dp = (n: number): string => String(Math.round(n * 100) / 100);
const secs = (s: number): string => String(Math.round(s * 1000) / 1000);
/** idb's argparse reads coordinates with type=int. */
const int = (n: number): string => String(Math.round(n));

export const AXE: ToolArgv = {
  describe: (udid) => ['describe-ui', '--udid', udid],
  tap: (udid, p) => ['tap', '-x', dp(p.x), '-y', dp(p.y), '--udid', udid],
  press: (udid, p, s) => ['touch', '-x', dp(p.x), '-y', dp(p.y), '--down', '--up', '--delay', secs(s), '--udid', udid],
  swipe: (udid, a, b, s, d) => [
    'swipe',
    '--start-x',
    dp(a.x),
    '--start-y',
    dp(a.y),
    '--end-x',
    dp(b.x),
    '--end-y',
    dp(b.y),
    '--duration',
    secs(s),
    '--delta',
    dp(d),
    '--udid',
    udid,
  ],
  type: (udid, text) => ({ args: ['type', '--stdin', '--udid', udid], input: text }),
  key: (udid, code) => ['key', String(code), '--udid', udid],
  home: (udid) => ['button', 'home', '--udid', udid],
};

/** AXe 1.6.0 and later: `describe-ui --point x,y` describes the element a touch there reaches. */
export const AXE_POINT: ToolArgv = {
  ...AXE,
  describePoint: (udid, p) => ['describe-ui', '--point', `${dp(p.x)},${dp(p.y)}`, '--udid', udid],
};

export const IDB: ToolArgv = {
  describe: (udid, nested) => ['ui', 'describe-all', '--json', ...(nested ? ['--nested'] : []), '--udid', udid],
  describePoint: (udid, p) => ['ui', 'describe-point', '--json', int(p.x), int(p.y), '--udid', udid],
  tap: (udid, p) => ['ui', 'tap', int(p.x), int(p.y), '--udid', udid],
  press: (udid, p, s) => ['ui', 'tap', int(p.x), int(p.y), '--duration', secs(s), '--udid', udid],
  swipe: (udid, a, b, s, d) => [
    'ui',
    'swipe',
    int(a.x),
    int(a.y),
    int(b.x),
    int(b.y),
    '--duration',
    secs(s),
    '--delta',
    String(Math.max(1, Math.round(d))),
    '--udid',
    udid,
  ],
  type: (udid, text) => ({ args: ['ui', 'text', '--udid', udid, '--', text] }),
  key: (udid, code) => ['ui', 'key', String(code), '--udid', udid],
  home: (udid) => ['ui', 'button', 'HOME', '--udid', udid],
};

/** USB HID usage ids (keyboard page 0x07), the codes both tools' `key` commands take. */
export const HID_KEYS: Readonly<Record<string, number>> = {
  Enter: 40,
  Return: 40,
  Escape: 41,
  Backspace: 42,
  Tab: 43,
  Space: 44,
  Delete: 76,
  Home: 74,
  PageUp: 75,
  End: 77,
  PageDown: 78,
  ArrowRight: 79,
  ArrowLeft: 80,
  ArrowDown: 81,
  ArrowUp: 82,
};

/**
 * What the tools can type: both turn text into HID key presses on a US layout, so printable ASCII
 * only (AXe refuses anything else; idb's `ui text` maps characters to the same kind of table).
 * Newlines and tabs are sent as the Enter and Tab keys by the caller.
 */
export function untypeable(text: string): string[] {
  return [...new Set([...text].filter((c) => !/^[\x20-\x7e\t\n]$/.test(c)))];
}
