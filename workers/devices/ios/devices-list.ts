// Reads `xcrun simctl list devices -j`: {"devices": {"<runtime id>": [{udid, name, state, isAvailable,
// availabilityError?, deviceTypeIdentifier?, …}]}}. Runtime ids look like
// com.apple.CoreSimulator.SimRuntime.iOS-17-2 (Xcode 10.1 and later; earlier ones keyed by "iOS 12.1").
// Only iPhone and iPad simulators on iOS runtimes are this backend's business: watchOS, tvOS and
// visionOS runtimes, iPods and anything unrecognised are left out.

export type SimState = 'Booted' | 'Shutdown' | 'Booting' | 'Shutting Down' | 'Creating' | string;

export interface SimDevice {
  udid: string;
  name: string;
  state: SimState;
  isAvailable: boolean;
  /** Why simctl cannot use it ("runtime profile not found"), when it cannot. */
  availabilityError: string | null;
  /** com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro; absent in Xcode 10's output. */
  deviceType: string | null;
  runtimeId: string;
  /** "iOS 17.2". */
  runtime: string;
  family: 'iPhone' | 'iPad';
  /** "iPhone 15 Pro": the device type, since a simulator's own name can be anything. */
  model: string;
}

export class DeviceListError extends Error {
  override readonly name = 'DeviceListError';
}

const RUNTIME_PREFIX = 'com.apple.CoreSimulator.SimRuntime.';
const TYPE_PREFIX = 'com.apple.CoreSimulator.SimDeviceType.';

/** "com.apple.CoreSimulator.SimRuntime.iOS-17-2" → {platform: "iOS", name: "iOS 17.2"}. */
export function runtimeName(id: string): { platform: string; name: string } {
  if (id.startsWith(RUNTIME_PREFIX)) {
    const rest = id.slice(RUNTIME_PREFIX.length);
    const m = /^([A-Za-z]+)-(\d+(?:-\d+)*)$/.exec(rest);
    if (m) return { platform: m[1]!, name: `${m[1]} ${m[2]!.replace(/-/g, '.')}` };
    return { platform: rest.split('-')[0] ?? rest, name: rest };
  }
  // Xcode before 10.1 keyed the list by the runtime's display name.
  const legacy = /^([A-Za-z]+) (\d+(?:\.\d+)*)$/.exec(id.trim());
  if (legacy) return { platform: legacy[1]!, name: `${legacy[1]} ${legacy[2]}` };
  return { platform: id, name: id };
}

/**
 * The device type as Xcode names it: "…SimDeviceType.iPhone-15-Pro" → "iPhone 15 Pro". Type ids
 * spell Xcode's name with every space, dot and parenthesis turned into "-" ("iPad-Pro--12-9-inch---4th-generation-"
 * is "iPad Pro (12.9-inch) (4th generation)") and, since the M4 iPads, end in the memory size
 * ("iPad-Pro-13-inch-M5-12GB" is "iPad Pro 13-inch (M5)"), which Xcode's name leaves out.
 */
export function modelName(deviceType: string | null, fallback: string): string {
  if (!deviceType?.startsWith(TYPE_PREFIX)) return fallback;
  const id = deviceType
    .slice(TYPE_PREFIX.length)
    .replace(/(\d+)-(\d+)-inch/g, '$1.$2-inch')
    .replace(/-\d+[GT]B-*$/i, '');
  const words = id
    .replace(/-inch\b/g, '\u2010inch')
    .split('-')
    .filter(Boolean);
  return words.length ? phrase(words).replace(/\u2010/g, '-') : fallback;
}

/** Words back into Xcode's phrasing: "(Nth generation)", a size in parentheses unless a chip follows it, "(M5)". */
function phrase(words: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    if (/^\d+(?:st|nd|rd|th)$/.test(w) && next === 'generation') {
      out.push(`(${w} generation)`);
      i++;
    } else if (/^[AM]\d{1,2}$/.test(w) && i > 0) {
      out.push(`(${words.slice(i).join(' ')})`);
      break;
    } else if (/\u2010inch$/.test(w)) {
      out.push(next !== undefined && /^[AM]\d{1,2}$/.test(next) ? w : `(${w})`);
    } else out.push(w);
  }
  return out.join(' ');
}

function familyOf(deviceType: string | null, name: string): 'iPhone' | 'iPad' | null {
  const key = deviceType?.startsWith(TYPE_PREFIX) ? deviceType.slice(TYPE_PREFIX.length) : name;
  if (/^iPhone/i.test(key)) return 'iPhone';
  if (/^iPad/i.test(key)) return 'iPad';
  return null;
}

/** The iPhone and iPad simulators in simctl's JSON, in the order simctl lists them. */
export function parseDeviceList(text: string): SimDevice[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new DeviceListError(`\`simctl list devices -j\` printed something that is not JSON (${(err as Error).message})`);
  }
  const byRuntime = (doc as { devices?: unknown } | null)?.devices;
  if (typeof byRuntime !== 'object' || byRuntime === null || Array.isArray(byRuntime)) {
    throw new DeviceListError('`simctl list devices -j` printed JSON without a "devices" object');
  }
  const out: SimDevice[] = [];
  for (const [runtimeId, entries] of Object.entries(byRuntime as Record<string, unknown>)) {
    const { platform, name: runtime } = runtimeName(runtimeId);
    if (platform !== 'iOS' || !Array.isArray(entries)) continue;
    for (const e of entries as Record<string, unknown>[]) {
      if (typeof e !== 'object' || e === null || typeof e.udid !== 'string' || typeof e.name !== 'string') continue;
      const deviceType = typeof e.deviceTypeIdentifier === 'string' ? e.deviceTypeIdentifier : null;
      const family = familyOf(deviceType, e.name);
      if (!family) continue;
      // Xcode 9 and 10 wrote "availability": "(available)" alongside or instead of isAvailable.
      const isAvailable = typeof e.isAvailable === 'boolean' ? e.isAvailable : e.availability === '(available)';
      const error = typeof e.availabilityError === 'string' && e.availabilityError.trim() ? e.availabilityError.trim() : null;
      out.push({
        udid: e.udid,
        name: e.name,
        state: typeof e.state === 'string' ? e.state : 'Unknown',
        isAvailable,
        availabilityError: isAvailable ? null : (error ?? 'simctl marks it unavailable'),
        deviceType,
        runtimeId,
        runtime,
        family,
        model: modelName(deviceType, e.name),
      });
    }
  }
  return out;
}

/** Whether the worker can drive it now or after a boot; otherwise why not. */
export function healthOf(d: SimDevice): { ready: true } | { ready: false; reason: string } {
  if (!d.isAvailable) return { ready: false, reason: `simctl says it is unavailable: ${d.availabilityError}` };
  if (d.state === 'Booted' || d.state === 'Shutdown' || d.state === 'Booting' || d.state === 'Shutting Down') return { ready: true };
  return { ready: false, reason: `it is in state "${d.state}"` };
}
