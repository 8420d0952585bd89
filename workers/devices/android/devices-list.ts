// `adb devices -l`, read. adb prints each transport as `%-22s %s` (serial padded to 22, then the
// state), then ` usb:… product:… model:… device:…` where known, and since platform-tools 29 a
// ` transport_id:N` that is always last (adb's transport.cpp puts it there so parsers can find it
// from the end). The short form (`adb devices`) separates serial and state with a tab. States are
// adb's own words; "no permissions" carries a sentence of help after it. Lines adb prints about
// its own server ("* daemon started successfully") are not devices.
export interface ListedDevice {
  serial: string;
  /** device, offline, unauthorized, authorizing, connecting, no permissions, bootloader, … */
  state: string;
  /** What adb said after the state word, for states that explain themselves ("no permissions (…)"). */
  stateDetail: string;
  usb?: string;
  product?: string;
  /** As adb prints it: every character that is not a letter or digit became "_". */
  model?: string;
  device?: string;
  transportId?: number;
  /** The console port of an emulator (its serial is emulator-<port>), null for anything else. */
  emulatorPort: number | null;
}

const STATES = [
  'device',
  'offline',
  'unauthorized',
  'authorizing',
  'connecting',
  'bootloader',
  'recovery',
  'rescue',
  'sideload',
  'host',
  'detached',
  'unknown',
  'no permissions',
];
const LINE = new RegExp(`^(\\S.*?)\\s+(${STATES.join('|')})(?=\\s|$)(.*)$`);
const ATTRIBUTE = /^(usb|product|model|device):(\S*)$/;

export function parseDevicesList(text: string): ListedDevice[] {
  const out: ListedDevice[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (!line.trim() || line.startsWith('List of devices attached') || line.startsWith('* ') || /^adb server version/.test(line)) continue;
    const parsed = parseLine(line);
    if (parsed) out.push(parsed);
  }
  return out;
}

function parseLine(line: string): ListedDevice | null {
  let rest = line;
  let transportId: number | undefined;
  const tid = /\s+transport_id:(\d+)$/.exec(rest);
  if (tid) {
    transportId = Number(tid[1]);
    rest = rest.slice(0, tid.index);
  }
  const m = LINE.exec(rest);
  if (!m) return null;
  const serial = m[1]!.trim();
  const tokens = m[3]!.trim().split(/\s+/).filter(Boolean);
  const firstAttr = tokens.findIndex((t) => ATTRIBUTE.test(t));
  const detailTokens = firstAttr < 0 ? tokens : tokens.slice(0, firstAttr);
  const device: ListedDevice = { serial, state: m[2]!, stateDetail: detailTokens.join(' '), emulatorPort: emulatorPort(serial) };
  for (const t of firstAttr < 0 ? [] : tokens.slice(firstAttr)) {
    const a = ATTRIBUTE.exec(t);
    if (a) device[a[1] as 'usb' | 'product' | 'model' | 'device'] = a[2]!;
  }
  if (transportId !== undefined) device.transportId = transportId;
  return device;
}

export function emulatorPort(serial: string): number | null {
  const m = /^emulator-(\d{2,5})$/.exec(serial);
  return m ? Number(m[1]) : null;
}

/** Whether adb can drive the device, and if not, why, in words a person can act on. */
export function stateHealth(d: Pick<ListedDevice, 'serial' | 'state' | 'stateDetail'>): { ready: true } | { ready: false; reason: string } {
  switch (d.state) {
    case 'device':
      return { ready: true };
    case 'offline':
      return { ready: false, reason: `adb lists ${d.serial} as offline: still booting, or its adb connection is stuck (\`adb -s ${d.serial} reconnect\`)` };
    case 'unauthorized':
      return {
        ready: false,
        reason: `adb lists ${d.serial} as unauthorized: this computer's adb key was not accepted (restart the adb server or accept the prompt)`,
      };
    case 'authorizing':
    case 'connecting':
      return { ready: false, reason: `adb is still ${d.state} to ${d.serial}` };
    case 'no permissions':
      return { ready: false, reason: `adb has no permission to open ${d.serial}: ${d.stateDetail || 'check the udev rules'}` };
    default:
      return { ready: false, reason: `adb lists ${d.serial} in state "${d.state}", not "device"` };
  }
}
