// What the Android doubles share: the pretend emulator's state (a JSON file in the state folder,
// so the fake adb processes, the console double and the test all see one device), the screens it
// can show (real uiautomator/Appium dumps from /work/shared/corpus), and the pixels of each screen
// (drawn from its dump's layout by ../layout-png.mjs: no recorded screenshots of these screens exist).
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { layoutPng, xmlBoxes } from '../layout-png.mjs';

export const LAUNCHER = 'com.google.android.apps.nexuslauncher';
export const FIXTURES = new URL('./fixtures/', import.meta.url);
const CORPUS = process.env.FAKE_ADB_CORPUS ?? new URL('../../../../shared/corpus/android/', import.meta.url).pathname;

/** Screens by name: which dump the double's uiautomator returns for it. */
export const SCREENS = {
  home: { file: new URL('launcher-home.uiautomator.xml', FIXTURES).pathname },
  settings: { file: join(CORPUS, 'ldi-github-shirates-core__XmlDataAndroid.SettingsTopScreen.xml') },
  network: { file: join(CORPUS, 'ldi-github-shirates-core__XmlDataAndroid.NetworkAndInternetScreen.xml') },
  connected: { file: join(CORPUS, 'ldi-github-shirates-core__XmlDataAndroid.ConnectedDevicesScreen.xml') },
  security: { file: join(CORPUS, 'ldi-github-shirates-core__XmlDataAndroid.SecurityScreen.xml') },
  alarm: { file: join(CORPUS, 'ldi-github-shirates-core__XmlDataAndroid.clock_Alarm.xml') },
};

/** The apps installed on the pretend emulator: their screens in the order changeScreen() walks them. */
export const APPS = {
  // `requested`: the runtime permissions its manifest asks for (pm grant refuses any other).
  'com.android.settings': {
    versionName: '14',
    activity: '.Settings',
    screens: ['settings', 'network', 'connected', 'security'],
    requested: [
      'android.permission.ACCESS_FINE_LOCATION',
      'android.permission.ACCESS_COARSE_LOCATION',
      'android.permission.POST_NOTIFICATIONS',
      'android.permission.READ_CONTACTS',
    ],
  },
  'com.google.android.deskclock': { versionName: '7.7.1', activity: 'com.android.deskclock.DeskClock', screens: ['alarm'] },
  // Installed, with no launcher activity: monkey finds nothing to start.
  'com.android.providers.contacts': { versionName: '14', activity: null, screens: [] },
  // Not on the device until `adb install` of an APK that names it (see adb.mjs).
  'org.example.notes': { versionName: '1.2', activity: '.NotesActivity', screens: ['alarm'], preinstalled: false },
};

/** On the device now: shipped with it, or installed since. */
export function isInstalled(state, pkg) {
  const app = APPS[pkg];
  return Boolean(app) && (app.preinstalled !== false || (state.installed ?? []).includes(pkg));
}

export function defaultState({ serial = 'emulator-5554' } = {}) {
  return {
    devices: [
      {
        serial,
        state: 'device',
        product: 'sdk_gphone64_x86_64',
        model: 'sdk_gphone64_x86_64',
        device: 'emu64xa',
        transportId: 1,
        props: {
          'ro.product.model': 'sdk_gphone64_x86_64',
          'ro.build.version.release': '14',
          'ro.build.version.sdk': '34',
          'sys.boot_completed': '1',
          'ro.boot.qemu.avd_name': 'Pixel_7_API_34',
        },
        wmSize: 'Physical size: 1080x2160\n',
        wmDensity: 'Physical density: 420\n',
      },
    ],
    foreground: LAUNCHER,
    screen: 'home',
    /** Per package: whether a session left data behind ("dirty") or it is as installed. */
    data: Object.fromEntries(Object.keys(APPS).map((p) => [p, 'clean'])),
    snapshots: ['clean'],
  };
}

const statePath = (dir) => join(dir, 'state.json');

export function readState(dir) {
  return JSON.parse(readFileSync(statePath(dir), 'utf8'));
}

/** Written whole and renamed into place: a reader in another process never sees half a file. */
export function writeState(dir, state) {
  const tmp = join(dir, `state.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, statePath(dir));
}

export function initState(dir, state = defaultState()) {
  mkdirSync(dir, { recursive: true });
  writeState(dir, state);
  return state;
}

export function updateState(dir, change) {
  const state = readState(dir);
  change(state);
  writeState(dir, state);
  return state;
}

/** One line per thing the double was asked (adb argv, console command), for tests to read. */
export function log(dir, line) {
  appendFileSync(join(dir, 'commands.log'), `${line}\n`);
}

/** Touches in device pixels, as the device would see them: {via, action, x, y, at}. */
export function recordTouch(dir, entry) {
  appendFileSync(join(dir, 'touches.log'), `${JSON.stringify({ ...entry, at: Date.now() })}\n`);
}

export function readTouches(dir) {
  const file = join(dir, 'touches.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A detached input service: inputs are accepted and reach nothing. */
export function inputDetached(dir) {
  return existsSync(join(dir, 'input-detached'));
}

export function pixelSize(device) {
  const text = device.wmSize;
  const m = /Override size: (\d+)x(\d+)/.exec(text) ?? /Physical size: (\d+)x(\d+)/.exec(text);
  return { width: Number(m[1]), height: Number(m[2]) };
}

export function dumpOf(screen) {
  return readFileSync(SCREENS[screen].file, 'utf8');
}

export function showApp(state, pkg) {
  state.foreground = pkg;
  state.screen = APPS[pkg]?.screens[0] ?? 'home';
  state.data[pkg] = 'dirty';
}

export function goHome(state) {
  state.foreground = LAUNCHER;
  state.screen = 'home';
}

/** Rows of a screen that lead somewhere when tapped, by their title text in the recorded dump. */
const LINKS = { settings: { 'Network &amp; internet': 'network', 'Connected devices': 'connected' } };

/**
 * Where a tap at (x, y) device pixels on this screen leads, or null. The row is found by its title's
 * text node: a tap within a row's height of the title's middle (rows are ~200 px at 420 dpi) is on it.
 */
export function linkAt(screen, _x, y) {
  const links = LINKS[screen];
  if (!links) return null;
  let best = null;
  for (const m of dumpOf(screen).matchAll(/text="([^"]*)"[^>]*?bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/g)) {
    const to = links[m[1]];
    if (!to) continue;
    const mid = (Number(m[3]) + Number(m[5])) / 2;
    const d = Math.abs(mid - y);
    if (d < 100 && (!best || d < best.d)) best = { to, d };
  }
  return best?.to ?? null;
}

/** The next screen of the app in front (the app moved by itself: a timer, a push, an animation). */
export function nextScreen(state) {
  const screens = APPS[state.foreground]?.screens ?? [];
  const names = screens.length > 1 ? screens : Object.keys(SCREENS);
  state.screen = names[(names.indexOf(state.screen) + 1) % names.length];
}

/** The PNG of a screen at the device's size, made once per screen and size and kept in the state folder. */
export function screenPng(dir, screen, { width, height }) {
  const file = join(dir, `screen-${screen}-${width}x${height}.png`);
  if (existsSync(file)) return readFileSync(file);
  // The dump's boxes are in the pixels of the device it was recorded on: scaled to this one's.
  const { boxes, screen: recorded } = xmlBoxes(dumpOf(screen));
  const sx = width / (recorded?.width || width);
  const sy = height / (recorded?.height || height);
  const png = layoutPng(
    width,
    height,
    boxes.map((b) => ({ ...b, x: b.x * sx, y: b.y * sy, width: b.width * sx, height: b.height * sy })),
  );
  writeFileSync(file, png);
  return png;
}

/** What `input text` makes of its argument: "%s" is a space (InputShellCommand.sendText). */
export function decodeInputText(arg) {
  const out = [...arg];
  let escaping = false;
  for (let i = 0; i < out.length; i++) {
    if (escaping) {
      escaping = false;
      if (out[i] === 's') {
        out[i] = ' ';
        out.splice(--i, 1);
      }
    }
    if (out[i] === '%') escaping = true;
  }
  return out.join('');
}
