// The answer idb gives when its companion has lost the simulator's accessibility service (a stale
// idb_companion, typically after an Xcode upgrade or a simulator reboot under it): `describe-all`
// and `describe-point` both print one element with a zero frame and no role, label or type,
// `[{"AXFrame":"{{0, 0}, {0, 0}}","AXLabel":null,"enabled":false,"role":null}]`, and exit 0.
// Read as a screen it has no size; it is a failure of the tool, and only the operator can fix it.
import { DeviceError } from '../backend.js';

export const STALE_COMPANION_HINT =
  'restart the idb companion: `idb kill`, then `idb connect <udid>` (or start `idb_companion --udid <udid>` again); after an Xcode upgrade, `brew upgrade idb-companion` first';

/** Whether the tool printed the empty sentinel rather than a screen or an element. */
export function isEmptySentinel(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim());
  } catch {
    return false;
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.length > 0 && list.every(emptyElement);
}

function emptyElement(el: unknown): boolean {
  if (typeof el !== 'object' || el === null || Array.isArray(el)) return false;
  const e = el as Record<string, unknown>;
  const zeroFrame = typeof e.AXFrame === 'string' && /^\{\{\s*0(?:\.0+)?,\s*0(?:\.0+)?\},\s*\{\s*0(?:\.0+)?,\s*0(?:\.0+)?\}\}$/.test(e.AXFrame.trim());
  const blank = (k: string) => e[k] === undefined || e[k] === null || e[k] === '';
  const childless = !Array.isArray(e.children) || e.children.length === 0;
  return zeroFrame && blank('role') && blank('type') && blank('AXLabel') && blank('AXUniqueId') && childless;
}

/** The typed error for it: same code as any tool failure, with the cause named for logs and the hosts list. */
export function staleCompanion(tool: 'idb' | 'axe', what: string): DeviceError {
  const hint =
    tool === 'idb'
      ? STALE_COMPANION_HINT
      : 'shut the simulator down and boot it again: its accessibility service answers with nothing (AXe restarts testmanagerd itself first)';
  return new DeviceError(
    'DEVICE_FAILED',
    `${tool} answered ${what} with one empty element (zero frame, no role): ${tool === 'idb' ? 'its companion has lost the simulator' : "the simulator's accessibility service answered nothing"}`,
    hint,
    { cause: tool === 'idb' ? 'IDB_COMPANION_STALE' : 'ACCESSIBILITY_EMPTY' },
  );
}
