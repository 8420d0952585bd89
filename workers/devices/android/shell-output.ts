// What Android's shell commands print, read. Each format here was checked against the platform
// source or recorded output (see test/doubles/android/fixtures/README.md for which):
//  - `wm size` / `wm density` (WindowManagerShellCommand): "Physical size: WxH", and
//    "Override size: WxH" only when someone overrode it; the same for "… density: N";
//  - `dumpsys activity activities`: the resumed activity is `topResumedActivity=ActivityRecord{…}`
//    (Android 10+), `ResumedActivity: ActivityRecord{…}` (9+), `mResumedActivity: ActivityRecord{…}`
//    (every stack before 10; "null" for stacks with nothing resumed). The record's id is hex on
//    older builds and decimal on API 36, which also appends ", isEmbedded=false";
//  - `dumpsys package <pkg>`: "versionName=…" under "Package [pkg]". An updated system app is
//    listed twice (also under "Hidden system packages:"); the first is the installed one;
//  - `uiautomator dump /dev/tty`: the XML, then "UI hierchary dumped to: /dev/tty" (AOSP's own
//    misspelling) on stdout; failures print "ERROR: …" and may still print that line;
//  - monkey: "Events injected: 1" when it launched; "** No activities found to run, monkey
//    aborted." when the package has no launcher activity (or is not installed);
//  - `am start`: "Error: Activity not started, unable to resolve Intent …" and "Error type N".
//  - `adb install`: "Performing Streamed Install" then "Success"; a refusal is
//    "adb: failed to install PATH: Failure [INSTALL_FAILED_…: …]" (exit 1; adb before API 20 exits 0
//    and prints "Failure […]" alone), a missing file "adb: failed to stat PATH: No such file or
//    directory" (public reports quoted in test/doubles/android/fixtures/README.md).
//  - `pm grant` / `pm revoke`: nothing on success; a refusal is the exception's line, after
//    "Exception occurred while executing 'grant':" (exit 255, recent releases) or after "Operation
//    not allowed: " (older ones, exit 0): "java.lang.SecurityException: Package P has not requested
//    permission X" (Android 14+: "Permission X isn't requested by package P"), "java.lang.IllegalArgumentException: Unknown permission: X", "… Unknown package:
//    P", "… Permission X requested by P is not a changeable permission type".
import { DeviceError } from '../backend.js';
import { firstLine } from './adb.js';

export interface PixelSize {
  width: number;
  height: number;
}

/** The size the screen is drawn at: the override when one is set, else the physical size. */
export function parseWmSize(text: string): PixelSize {
  const read = (label: string): PixelSize | undefined => {
    const m = new RegExp(`^\\s*${label} size:\\s*(\\d+)x(\\d+)\\s*$`, 'm').exec(text);
    return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined;
  };
  const size = read('Override') ?? read('Physical');
  if (!size || size.width <= 0 || size.height <= 0) {
    throw new DeviceError(
      'DEVICE_FAILED',
      `\`wm size\` did not print a size: ${firstLine(text) || '(nothing)'}`,
      'the window manager may not be up yet; wait for the device to finish booting',
    );
  }
  return size;
}

/** Dots per inch the UI is laid out at: the override when one is set, else the physical density. */
export function parseWmDensity(text: string): number {
  const read = (label: string): number | undefined => {
    const m = new RegExp(`^\\s*${label} density:\\s*(\\d+)\\s*$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const dpi = read('Override') ?? read('Physical');
  if (!dpi || dpi <= 0) {
    throw new DeviceError(
      'DEVICE_FAILED',
      `\`wm density\` did not print a density: ${firstLine(text) || '(nothing)'}`,
      'the window manager may not be up yet; wait for the device to finish booting',
    );
  }
  return dpi;
}

const RECORD = String.raw`ActivityRecord\{\S+ u\d+ ([A-Za-z0-9._]+)\/`;
const RESUMED = [
  new RegExp(`topResumedActivity=${RECORD}`),
  new RegExp(String.raw`^\s*ResumedActivity: ${RECORD}`, 'm'),
  new RegExp(`mResumedActivity: ${RECORD}`),
];

/** The package of the activity in front, or null when nothing is resumed (asleep, locked, booting). */
export function parseResumedPackage(text: string): string | null {
  for (const re of RESUMED) {
    const m = re.exec(text);
    if (m) return m[1]!;
  }
  return null;
}

/** versionName of the package, or null when the package is not installed or states none. */
export function parseVersionName(text: string, pkg: string): string | null {
  if (/Unable to find package/.test(text)) return null;
  const at = text.indexOf(`Package [${pkg}]`);
  const m = /^\s*versionName=(.*)$/m.exec(at >= 0 ? text.slice(at) : text);
  const v = m?.[1]?.trim();
  return v ? v : null;
}

/** The hierarchy XML out of what `uiautomator dump /dev/tty` printed, or a DeviceError saying what it said instead. */
export function uiDumpXml(output: string): string {
  const start = output.search(/<\?xml|<hierarchy/);
  const end = output.lastIndexOf('</hierarchy>');
  if (start < 0 || end < start) {
    const said = output.replace(/UI hierchary dumped to: \S+/g, '').trim();
    throw new DeviceError(
      'DEVICE_FAILED',
      `uiautomator printed no hierarchy${said ? `: ${firstLine(said)}` : ''}`,
      'uiautomator fails while the screen animates ("could not get idle state") or when no window is focused; it is retried on the next read',
    );
  }
  return output.slice(start, end + '</hierarchy>'.length);
}

/** Why monkey did not launch the app, or null when it did. */
export function monkeyFailure(output: string): string | null {
  if (/No activities found to run/.test(output)) return 'it has no launcher activity, or is not installed (monkey: "No activities found to run")';
  const aborted = /^\*\* .*$/m.exec(output);
  if (aborted && !/Events injected: [1-9]/.test(output)) return `monkey said: ${aborted[0].replace(/^\*\* /, '')}`;
  if (!/Events injected: [1-9]/.test(output)) return `monkey did not report launching it: ${firstLine(output) || '(no output)'}`;
  return null;
}

/** Why `am start` did not start anything, or null when it did. */
export function amStartFailure(output: string): string | null {
  const error = /^Error(?: type \d+)?: .*$/m.exec(output) ?? /^Error: .*$/m.exec(output);
  if (error) {
    const detail = /^Error: .*$/m.exec(output);
    return (detail ?? error)[0];
  }
  const exception = /^.*(?:Exception|Permission Denial).*$/m.exec(output);
  return exception ? exception[0].trim() : null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The PNG out of what `screencap -p` wrote, and the text it wrote first. On a device with several
 * displays (foldables, some emulators and vendor phones) screencap prints "[Warning] Multiple
 * displays were found, but no display id was specified! …" to stdout ahead of the PNG, and
 * `exec-out` delivers both as one stream. Only a prefix that is text is cut: binary noise before
 * a signature is no warning, and the bytes stay as they are for the PNG check to refuse.
 */
export function splitScreencap(data: Buffer): { png: Buffer; warning: string | null } {
  const at = data.subarray(0, 64 * 1024).indexOf(PNG_SIGNATURE);
  if (at <= 0) return { png: data, warning: null };
  const prefix = data.subarray(0, at).toString('utf8');
  if (!/^[\t\n\r\x20-\x7e\u00a0-\uffff]*$/.test(prefix) || prefix.includes('\ufffd')) return { png: data, warning: null };
  return { png: data.subarray(at), warning: prefix.replace(/\s+/g, ' ').trim() };
}

/** Width and height of a PNG from its IHDR chunk, or null when the bytes are not a PNG. */
export function pngSize(png: Buffer): PixelSize | null {
  if (png.length < 24 || png.readUInt32BE(0) !== 0x89504e47 || png.toString('ascii', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Why `adb install` did not install, from what it printed; null when it says Success. */
export function installFailure(out: string): string | null {
  if (/^Success\s*$/m.test(out)) return null;
  const failure = /Failure \[([^\]]*)\]/.exec(out);
  if (failure) return failure[1]!;
  const adbSaid = /^adb: (.*)$/m.exec(out);
  return adbSaid ? adbSaid[1]!.trim() : firstLine(out) || 'adb printed neither Success nor a failure';
}

/** Why `pm grant` / `pm revoke` refused a permission, or null when it printed no refusal. */
export type PmRefusal = {
  kind: 'not-requested' | 'unknown-permission' | 'not-changeable' | 'unknown-package' | 'shell-not-allowed' | 'other';
  said: string;
};

export function pmPermissionRefusal(out: string, code: number): PmRefusal | null {
  const said = out
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /Exception|Operation not allowed|^Error/.test(l) && !l.startsWith('Exception occurred while executing'));
  if (!said && code === 0) return null;
  const line = said ?? (firstLineOf(out) || `exit code ${code}`);
  // Android 13 and earlier: "Package P has not requested permission X"; the permission service
  // of Android 14+ (PermissionService.kt): "Permission X isn't requested by package P".
  if (/has not requested permission|isn't requested by package/.test(line)) return { kind: 'not-requested', said: line };
  if (/Unknown permission/.test(line)) return { kind: 'unknown-permission', said: line };
  if (/not a changeable permission type/.test(line)) return { kind: 'not-changeable', said: line };
  if (/Unknown package/.test(line)) return { kind: 'unknown-package', said: line };
  // Xiaomi's MIUI/HyperOS withhold GRANT_RUNTIME_PERMISSIONS from the shell until a developer setting allows it.
  if (/(?:GRANT|REVOKE)_RUNTIME_PERMISSIONS/.test(line)) return { kind: 'shell-not-allowed', said: line };
  return { kind: 'other', said: line };
}

const firstLineOf = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean) ?? '';
