// An app's short version ("2.5.0", CFBundleShortVersionString), which memory bands by its major
// number. `simctl appinfo` lists it on some Xcode releases and leaves it out on others (a recording
// from an iOS 26.5 runtime has none), so the app bundle's own Info.plist, at the Path appinfo
// reports, is read when appinfo does not say.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { infoPlistString } from './plist.js';
import type { Simctl } from './simctl.js';

/** The version, or null when the app has none; throws when simctl or the file cannot be read. */
export async function readAppVersion(simctl: Simctl, udid: string, bundleId: string): Promise<string | null> {
  const info = await simctl.appInfo(udid, bundleId);
  if (typeof info?.CFBundleShortVersionString === 'string') return info.CFBundleShortVersionString;
  if (typeof info?.Path !== 'string') return null;
  return infoPlistString(await readFile(join(info.Path, 'Info.plist')), 'CFBundleShortVersionString');
}
