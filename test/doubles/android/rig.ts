// An Android provider wired to the doubles: a state folder for the pretend emulator, the fake adb
// behind a one-line wrapper that names that folder (so two rigs never share a device), and the
// console double on the emulator's console port, or that port left closed (adb only).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { ResetPolicy } from '../../../workers/devices/android/apps.js';
import { AndroidProvider } from '../../../workers/devices/android/provider.js';
import { ConsoleDouble } from './console-server.js';
import { type FakeState, defaultState, initState, readState, readTouches, updateState } from './screen.mjs';

export const TOKEN = 'Zq3xR7tY1uI9oP2a';
const ADB = fileURLToPath(new URL('./adb.mjs', import.meta.url));

export interface Rig {
  dir: string;
  serial: string;
  adbPath: string;
  tokenFile: string;
  provider: AndroidProvider;
  console: ConsoleDouble | null;
  state(): FakeState;
  update(change: (s: FakeState) => void): FakeState;
  /** The device pixels of the last touch-down the device saw (tap, swipe start, DOWN), or null. */
  lastDownPx(): { x: number; y: number } | null;
  /** Lines of commands.log: every adb call and console command the doubles received. */
  commands(): string[];
  close(): Promise<void>;
}

/** A port nothing listens on (taken and given back at once). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Each fake adb call starts a Node process (~0.1 s of CPU): the rig reads `adb devices -l` seldom unless asked. */
export async function androidRig(opts: { console: boolean; reset?: ResetPolicy; pollMs?: number; discoverMs?: number; apkDir?: string }): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'simfleet-android-rig-'));
  const tokenFile = join(dir, 'emulator_console_auth_token');
  writeFileSync(tokenFile, TOKEN);
  const double = opts.console ? await ConsoleDouble.start({ stateDir: dir, token: TOKEN }) : null;
  const serial = `emulator-${double ? double.port : await closedPort()}`;
  initState(dir, defaultState({ serial }));
  const adbPath = join(dir, 'adb');
  writeFileSync(adbPath, `#!/bin/sh\nFAKE_ADB_STATE='${dir}' exec '${process.execPath}' '${ADB}' "$@"\n`);
  chmodSync(adbPath, 0o755);
  const provider = new AndroidProvider({
    adb: adbPath,
    consoleTokenFile: tokenFile,
    reset: opts.reset ?? 'clear',
    ...(opts.apkDir ? { apkDir: opts.apkDir } : {}),
    pollMs: opts.pollMs ?? 150,
    discoverMs: opts.discoverMs ?? 3000,
    logger: pino({ level: 'silent' }),
  });
  return {
    dir,
    serial,
    adbPath,
    tokenFile,
    provider,
    console: double,
    state: () => readState(dir),
    update: (change) => updateState(dir, change),
    lastDownPx: () => {
      const down = readTouches(dir)
        .filter((t) => ['down', 'tap', 'swipe'].includes(t.action))
        .at(-1);
      return down ? { x: down.x, y: down.y } : null;
    },
    commands: () => {
      const file = join(dir, 'commands.log');
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    },
    close: async () => {
      await provider.close();
      await double?.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); // the double may still be writing into it as it exits (ENOTEMPTY seen)
    },
  };
}
