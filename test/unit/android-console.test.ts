// The emulator console client against the console double (the emulator's own protocol text):
// auth, failures that say what to fix, reconnecting after a drop, screenshots written on the host,
// and touches sent in order with their timing.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TouchFrame } from '../../workers/devices/backend.js';
import { DeviceError } from '../../workers/devices/backend.js';
import { ConsoleShots } from '../../workers/devices/android/capture.js';
import { ConsoleRefused, EmulatorConsole } from '../../workers/devices/android/console.js';
import { playOnConsole } from '../../workers/devices/android/touch.js';
import { pinch } from '../../workers/devices/gestures.js';
import { ConsoleDouble } from '../doubles/android/console-server.js';
import { initState, readState, readTouches, screenPng } from '../doubles/android/screen.mjs';

const TOKEN = 'k3Yx9Qz0rT5uW8aB';
const SIZE = { width: 1080, height: 2160 };
let dir: string;
let tokenFile: string;
let double: ConsoleDouble;
let client: EmulatorConsole;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'simfleet-console-test-'));
  initState(dir);
  tokenFile = join(dir, 'emulator_console_auth_token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  double = await ConsoleDouble.start({ stateDir: dir, token: TOKEN });
  client = new EmulatorConsole({ port: double.port, tokenFile, timeoutMs: 3000 });
});

afterEach(async () => {
  client.close();
  await double.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = () => double.received.map((r) => r.line);
const failure = async (p: Promise<unknown>): Promise<DeviceError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DeviceError);
  return err as DeviceError;
};

describe('the emulator console client', () => {
  it('reads the banner, authenticates with the token from the file, then runs commands', async () => {
    // The first command after auth gets its own reply, not the auth's second OK (the barrier ping).
    expect(await client.avdName()).toBe('Pixel_7_API_34');
    await client.ping();
    expect(lines()).toEqual([`auth ${TOKEN}`, 'ping', 'avd name', 'ping']);
    expect(double.connections).toBe(1);
  });

  it('says which token file was refused when the emulator answers the auth with KO', async () => {
    double.token = 'a-different-token';
    const err = await failure(client.ping());
    expect(err.message).toBe(
      `the emulator console on port ${double.port} refused the token from ${tokenFile}: authentication token does not match ~/.emulator_console_auth_token`,
    );
    expect(err.hint).toContain(tokenFile);
    expect(err.hint).toMatch(/consoleTokenFile/);
    // Fixed the token: the next command connects and authenticates afresh.
    double.token = TOKEN;
    await client.ping();
    expect(double.connections).toBe(2);
  });

  it('names the token file when it cannot be read', async () => {
    rmSync(tokenFile);
    const err = await failure(client.ping());
    expect(err.message).toContain(`${tokenFile} could not be read`);
    expect(err.hint).toMatch(/consoleTokenFile/);
  });

  it('needs no token from an emulator whose token file is empty', async () => {
    double.token = '';
    rmSync(tokenFile);
    await client.ping();
    expect(lines()).toEqual(['ping']);
  });

  it('fails the command a dropped connection was carrying, naming the port, and reconnects for the next', async () => {
    await client.ping();
    double.dropOn = 'event mouse';
    const err = await failure(client.command('event mouse 10 20 0 1'));
    expect(err.message).toMatch(new RegExp(`console on port ${double.port} dropped the connection during "event mouse 10 20 0 1"`));
    expect(err.hint).toMatch(/reconnects/);
    await client.ping();
    expect(double.connections).toBe(2);
    expect(lines()).toEqual([`auth ${TOKEN}`, 'ping', 'ping', 'event mouse 10 20 0 1', `auth ${TOKEN}`, 'ping', 'ping']);
  });

  it('says the port refused the connection, and works once the emulator listens again', async () => {
    await double.refuse();
    const err = await failure(client.ping());
    expect(err.message).toBe(`the emulator console at 127.0.0.1:${double.port} refused the connection`);
    expect(err.hint).toContain(`emulator-${double.port}`);
    await double.accept();
    await client.ping();
  });

  it('keeps the connection after a KO reply to a command, which it reports as refused', async () => {
    const err = await failure(client.command('rotate sideways'));
    expect(err).toBeInstanceOf(ConsoleRefused);
    expect(err.message).toBe(`the emulator console on port ${double.port} refused "rotate sideways": unknown command, try 'help'`);
    await client.ping();
    expect(double.connections).toBe(1);
  });

  it('runs one command at a time, each answered in turn', async () => {
    const [name, , pong] = await Promise.all([client.avdName(), client.command('event mouse 1 2 0 1'), client.command('ping')]);
    expect(name).toBe('Pixel_7_API_34');
    expect(pong).toEqual(['I am alive!']);
    expect(lines().slice(2)).toEqual(['avd name', 'event mouse 1 2 0 1', 'ping']);
  });

  it('has the emulator write a screenshot into a folder on this host and reads it back', async () => {
    const shots = new ConsoleShots(client);
    const png = await shots.take();
    expect(png.size).toEqual(SIZE);
    expect(png.data.equals(screenPng(dir, readState(dir).screen, SIZE))).toBe(true);
    const shot = lines().find((l) => l.startsWith('screenrecord screenshot '))!;
    expect(existsSync(shot.split(' ')[2]!), 'the per-shot folder is removed').toBe(false);
    await shots.close();
    expect(readdirSync(tmpdir()).some((f) => shot.includes(f) && f.startsWith('simfleet-android-shots-'))).toBe(false);
  });
});

describe('touches through the console', () => {
  it('sends down, moves and up in order, each at its time, in device pixels', async () => {
    const frames: TouchFrame[] = [
      { atMs: 0, touches: [{ id: 0, x: 100, y: 200 }] },
      { atMs: 150, touches: [{ id: 0, x: 110, y: 200 }] },
      { atMs: 300, touches: [{ id: 0, x: 110, y: 240 }] },
      { atMs: 450, touches: [] },
    ];
    await client.ping();
    const from = double.received.length;
    await playOnConsole(client, frames, 2.625, SIZE);
    const sent = double.received.slice(from);
    expect(sent.map((r) => r.line)).toEqual(['event mouse 263 525 0 1', 'event mouse 289 525 0 1', 'event mouse 289 630 0 1', 'event mouse 289 630 0 0']);
    // Each at its own time after the first (never early; late only by what a busy machine adds),
    // timed from the start so delays do not add up.
    sent.forEach((r, i) => {
      const offset = r.at - sent[0]!.at;
      expect(offset).toBeGreaterThanOrEqual(frames[i]!.atMs - 5);
      expect(offset).toBeLessThan(frames[i]!.atMs + 120);
    });
    expect(readTouches(dir).map((t) => [t.action, t.x, t.y])).toEqual([
      ['down', 263, 525],
      ['move', 289, 525],
      ['move', 289, 630],
      ['up', 289, 630],
    ]);
  });

  it('plays several fingers as multi-touch slots, positions scaled to the touch axis', async () => {
    await playOnConsole(client, pinch({ x: 200, y: 400 }, 2, { radius: 50, durationMs: 64 }), 2.625, SIZE);
    const sends = lines().filter((l) => l.startsWith('event send '));
    expect(sends[0]).toMatch(/^event send 3:47:0 3:57:0 3:58:1024 3:53:\d+ 3:54:\d+ 3:47:1 3:57:1 3:58:1024 3:53:\d+ 3:54:\d+ 0:0:0$/);
    expect(sends.at(-1)).toBe('event send 3:47:0 3:58:0 3:57:-1 3:47:1 3:58:0 3:57:-1 0:0:0');
    const downs = readTouches(dir).filter((t) => t.action === 'down');
    expect(downs.map((t) => t.slot)).toEqual([0, 1]);
    // (200 ∓ 50) dp × 2.625 = 394 / 656 px, 400 dp = 1050 px: within a pixel after the axis round trip.
    expect(Math.abs(downs[0]!.x - 394)).toBeLessThanOrEqual(1);
    expect(Math.abs(downs[1]!.x - 656)).toBeLessThanOrEqual(1);
    expect(Math.abs(downs[0]!.y - 1050)).toBeLessThanOrEqual(1);
    expect(readTouches(dir).filter((t) => t.action === 'up')).toHaveLength(2);
  });
});
