// Between sessions a simulator must keep nothing of the last one. Two policies, and what each clears:
//  - 'erase': shutdown, `simctl erase`, boot. Clears everything: every app and its data, the
//    keychain, permissions, settings. Since that removes the session's app too, it is copied out of
//    the simulator first (the .app simctl reports as its Path) and installed again afterwards.
//  - 'reinstall': terminate, uninstall, install the copied .app again, reset its permissions
//    (`simctl privacy … reset all <bundle>`). Clears the app's data container and permissions; the
//    keychain, other apps and device settings stay. Faster than an erase (no reboot).
// When simctl gives no Path to copy from, 'erase' still erases (the app is then gone) and
// 'reinstall' can only terminate and reset permissions, so the app's data stays: both say so.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Simctl } from './simctl.js';

export type ResetPolicy = 'erase' | 'reinstall';

interface Stash {
  dir: string;
  app: string;
}

/** Copies the installed app bundle out of the simulator's container, or null when there is none. */
async function stashApp(simctl: Simctl, udid: string, bundleId: string): Promise<Stash | null> {
  const info = await simctl.appInfo(udid, bundleId);
  const path = typeof info?.Path === 'string' ? info.Path : null;
  if (!path) return null;
  const dir = await mkdtemp(join(tmpdir(), 'simfleet-ios-app-'));
  const app = join(dir, basename(path));
  await cp(path, app, { recursive: true });
  return { dir, app };
}

/** Resets the simulator under the policy; returns what it left behind (empty when nothing). */
export async function resetSimulator(policy: ResetPolicy, simctl: Simctl, udid: string, bundleId: string | null, signal?: AbortSignal): Promise<string[]> {
  const leftovers: string[] = [];
  const stash = bundleId ? await stashApp(simctl, udid, bundleId) : null;
  try {
    if (policy === 'erase') {
      await simctl.shutdown(udid, signal);
      await simctl.erase(udid, signal);
      await simctl.boot(udid, signal);
      if (stash) await simctl.install(udid, stash.app, signal);
      else if (bundleId) leftovers.push(`${bundleId} was erased with everything else and could not be reinstalled (simctl reported no path for it)`);
      return leftovers;
    }
    if (!bundleId) return leftovers;
    await simctl.terminate(udid, bundleId);
    if (stash) {
      await simctl.uninstall(udid, bundleId, signal);
      await simctl.install(udid, stash.app, signal);
    } else {
      leftovers.push(`${bundleId}'s data container remains (simctl reported no path to reinstall it from)`);
    }
    await simctl.privacy(udid, 'reset', 'all', bundleId);
    return leftovers;
  } finally {
    if (stash) await rm(stash.dir, { recursive: true, force: true });
  }
}
