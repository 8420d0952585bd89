// What the web backend needs of its host: a Chromium that runs, and (for a worker that is not root)
// a kernel that lets Chromium build its sandbox from unprivileged user namespaces.
import { readFile } from 'node:fs/promises';
import { type HostCheck, firstVersion, installCommand, probe, type ProbeHost, said } from '../../host/probe.js';
import { type BrowserPlaces, findChromium } from './discovery.js';

/** The unprivileged user a root host tries the sandbox as (`nobody` on Debian and macOS alike). */
const NOBODY = 65534;

export async function chromiumCheck(configured: string | undefined, needed: boolean, host: ProbeHost, places?: BrowserPlaces): Promise<HostCheck> {
  const base = { id: 'chromium', title: 'Chromium (the web device)', area: 'web', needed } as const;
  const fix = installCommand(host.platform, 'sudo apt-get install -y chromium', 'brew install --cask google-chrome');
  const found = await findChromium(configured, places);
  if ('missing' in found)
    return { ...base, status: configured ? 'broken' : 'missing', detail: found.missing, fix: configured ? `${fix}, or unset SIMFLEET_CHROMIUM` : fix };
  // findChromium asked for the version; only when it could not tell is it asked again, for why.
  if (!found.version || found.version === 'unknown') {
    const asked = await probe(found.path, ['--version'], { env: host.env });
    const why = asked.ok ? `\`--version\` printed no version: ${said(asked.out)}` : asked.message;
    return { ...base, status: 'broken', detail: `${found.source} at ${found.path} does not run: ${why}`, fix };
  }
  const version = firstVersion(found.version);
  return { ...base, status: 'ok', detail: `${found.version} (${found.source}: ${found.path})`, ...(version ? { version } : {}) };
}

export interface SandboxSysctls {
  /** kernel.unprivileged_userns_clone (Debian's patch; absent on other kernels). */
  unprivilegedUsernsClone?: string;
  /** kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10 and later). */
  apparmorRestrict?: string;
  /** user.max_user_namespaces. */
  maxUserNamespaces?: string;
}

async function readSysctls(): Promise<SandboxSysctls> {
  const read = (path: string) =>
    readFile(path, 'utf8').then(
      (t) => t.trim(),
      () => undefined,
    );
  const [clone, apparmor, max] = await Promise.all([
    read('/proc/sys/kernel/unprivileged_userns_clone'),
    read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    read('/proc/sys/user/max_user_namespaces'),
  ]);
  return {
    ...(clone ? { unprivilegedUsernsClone: clone } : {}),
    ...(apparmor ? { apparmorRestrict: apparmor } : {}),
    ...(max ? { maxUserNamespaces: max } : {}),
  };
}

/** The setting that keeps unprivileged user namespaces off, and the command that turns it on. */
export function sandboxFix(s: SandboxSysctls): { cause: string; fix: string } {
  if (s.maxUserNamespaces === '0') return { cause: 'user.max_user_namespaces is 0', fix: 'sudo sysctl -w user.max_user_namespaces=15000' };
  if (s.unprivilegedUsernsClone === '0') return { cause: 'kernel.unprivileged_userns_clone is 0', fix: 'sudo sysctl -w kernel.unprivileged_userns_clone=1' };
  if (s.apparmorRestrict === '1') {
    return {
      cause: 'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1)',
      fix: 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or give Chromium an AppArmor profile that allows userns)',
    };
  }
  return {
    cause: 'no sysctl explains it (a container without user namespaces, or a seccomp filter)',
    fix: 'run the worker where unprivileged user namespaces are allowed',
  };
}

/**
 * Whether Chromium's sandbox can run here. On Linux it needs unprivileged user namespaces; the check
 * makes one (`unshare --user --map-root-user true`) as the worker's user, or as `nobody` when the
 * worker is root: as root simfleet runs Chromium with --no-sandbox, and this says whether a worker
 * run as an unprivileged user could keep the sandbox.
 */
export async function sandboxCheck(needed: boolean, host: ProbeHost, sysctls: () => Promise<SandboxSysctls> = readSysctls): Promise<HostCheck> {
  const base = { id: 'browser-sandbox', title: "Chromium's sandbox (user namespaces)", area: 'web' } as const;
  if (host.platform === 'darwin') return { ...base, needed: false, status: 'ok', detail: "macOS: Chromium's sandbox uses Seatbelt, not user namespaces" };
  if (host.platform !== 'linux') return { ...base, needed: false, status: 'skipped', detail: `not checked on ${host.platform}` };
  const root = host.uid === 0;
  const as = root ? NOBODY : host.uid;
  const who = root ? `uid ${NOBODY} (nobody; this worker is root)` : `uid ${as}`;
  // As root the browser runs without the sandbox, so the web backend does not depend on this.
  const need = needed && !root;
  const tried = await probe('unshare', ['--user', '--map-root-user', 'true'], {
    timeoutMs: 5000,
    env: host.env,
    ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  if (!tried.ok && tried.kind === 'missing') {
    return {
      ...base,
      needed: false,
      status: 'skipped',
      detail: 'could not tell: unshare (util-linux) is not on the PATH',
      fix: 'sudo apt-get install -y util-linux',
    };
  }
  const asRoot = root ? '; this worker runs as root, so Chromium runs with --no-sandbox (run the worker as an unprivileged user to keep it)' : '';
  if (tried.ok) return { ...base, needed: need, status: 'ok', detail: `unprivileged user namespaces work (made one as ${who})${asRoot}` };
  const { cause, fix } = sandboxFix(await sysctls());
  return {
    ...base,
    needed: need,
    status: 'broken',
    detail: `an unprivileged user namespace could not be made as ${who} (${said(tried.out)}): ${cause}${root ? asRoot : '; Chromium will not start with its sandbox'}`,
    fix,
  };
}
