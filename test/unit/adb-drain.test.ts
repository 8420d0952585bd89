// Closing the Android backend waits for the adb calls still running (a screencap, a dump), and
// stops one that will not end: nothing is left running adb against a device after its backend is
// gone (in the doubles' rig, such a straggler was still writing into the folder being removed).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Adb } from '../../workers/devices/android/adb.js';

/** An adb whose every call runs this shell script. */
function adbScript(script: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sf-adb-')), 'adb');
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('adb calls still running when the backend closes', () => {
  it('are waited for when they end in time, and answer as usual', async () => {
    const adb = new Adb(adbScript('sleep 0.3; echo done'));
    const call = adb.text(['devices', '-l']);
    const t0 = performance.now();
    await adb.drain(3000);
    expect(performance.now() - t0).toBeGreaterThan(200);
    expect((await call).trim()).toBe('done');
  });

  it('are stopped at the deadline, each failing with a reason that says why', async () => {
    const adb = new Adb(adbScript('exec sleep 30')); // exec: the kill reaches the sleeper itself;
    const call = adb.shell('emulator-5554', 'uiautomator dump /dev/tty');
    const failed = call.then(
      () => null,
      (err: unknown) => err,
    );
    const t0 = performance.now();
    await adb.drain(300);
    const err = await failed;
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(err).toMatchObject({
      code: 'DEVICE_FAILED',
      message: 'adb shell uiautomator dump /dev/tty on emulator-5554 was stopped: the Android backend is closing',
    });
  });

  it('costs nothing when none is running', async () => {
    const t0 = performance.now();
    await new Adb('/nonexistent/adb').drain(3000);
    expect(performance.now() - t0).toBeLessThan(100);
  });
});
