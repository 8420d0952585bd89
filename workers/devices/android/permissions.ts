// Runtime permissions of the session's app, set with `pm grant` / `pm revoke` so no prompt has to
// be tapped through. One adb call per permission: pm's refusal of one (an app that does not request
// it) must not be mistaken for another's, and adb delivers a script's output as one stream.
// Reset revokes and then clears the "user set" and "user fixed" flags, which is what makes the
// app's next request show the prompt again (`pm clear-permission-flags`, Android 10 and later).
import { DeviceError } from '../backend.js';
import { androidPermissions, unsupported, type PermissionOutcome, type PermissionRequest } from '../permissions.js';
import { type Adb, shellQuote } from './adb.js';
import { pmPermissionRefusal } from './shell-output.js';

export async function setAndroidPermission(
  adb: Adb,
  serial: string,
  pkg: string | null,
  { action, permission }: PermissionRequest,
): Promise<PermissionOutcome> {
  const names = androidPermissions(permission, action);
  if (names.length === 0) throw unsupported('android', permission, 'Android has no runtime permission for it');
  if (!pkg) throw unsupported('android', permission, 'the session has no app to set it for (start it with app.package)');
  const applied: string[] = [];
  const skipped: string[] = [];
  let flagsKept: string | null = null;
  for (const name of names) {
    const verb = action === 'grant' ? 'grant' : 'revoke';
    const r = await adb.shellResult(serial, `pm ${verb} ${shellQuote(pkg)} ${name}`, { timeoutMs: 15_000 });
    const refusal = pmPermissionRefusal(r.out, r.code);
    if (refusal?.kind === 'unknown-package') {
      throw new DeviceError(
        'DEVICE_FAILED',
        `${pkg} is not installed on ${serial}: ${refusal.said}`,
        "the session's app is gone from the device; end the session and start another",
      );
    }
    if (refusal?.kind === 'shell-not-allowed') {
      throw new DeviceError(
        'DEVICE_FAILED',
        `${serial} does not let adb's shell set permissions: ${refusal.said}`,
        'on Xiaomi (MIUI/HyperOS) turn on "USB debugging (Security settings)" in Developer options, then reconnect',
        { applied, cause: 'SHELL_MAY_NOT_GRANT' },
      );
    }
    if (refusal?.kind === 'other') {
      throw new DeviceError(
        'DEVICE_FAILED',
        `pm ${verb} ${name} for ${pkg} failed on ${serial}: ${refusal.said}`,
        `try it by hand: adb -s ${serial} shell pm ${verb} ${pkg} ${name}`,
        { applied },
      );
    }
    // Not requested by this app, not a permission on this Android release, or granted at install.
    if (refusal) {
      skipped.push(name);
      continue;
    }
    applied.push(name);
    if (action === 'reset') {
      const f = await adb.shellResult(serial, `pm clear-permission-flags ${shellQuote(pkg)} ${name} user-set user-fixed`, { timeoutMs: 15_000 });
      if (pmPermissionRefusal(f.out, f.code)) flagsKept = f.out.trim().split('\n')[0] ?? '';
    }
  }
  if (applied.length === 0) {
    throw unsupported('android', permission, `${pkg} requests none of ${names.join(', ')} (or this Android release has none of them)`);
  }
  const notes = [
    ...(action !== 'grant' ? ['Android stops the app when a permission it held is revoked'] : []),
    ...(flagsKept !== null
      ? [`the user's earlier choice could not be cleared on this Android release (${flagsKept || 'no answer'}): the app may not prompt again`]
      : []),
  ];
  return { app: pkg, applied, ...(skipped.length ? { skipped } : {}), ...(notes.length ? { note: notes.join('; ') } : {}) };
}
