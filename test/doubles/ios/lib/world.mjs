// The simulated Mac the iOS doubles share: one state directory (FAKE_XCRUN_STATE) holding which
// simulators are booted, which apps are installed, which app is in front and what it shows. Every
// double reads it, the xcrun double changes it, and each records what it was asked in log.jsonl
// (and touches in touches.jsonl) so a test can see exactly what reached the "simulator".
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bandsPng } from './png.mjs';
import { jsonBoxes, layoutPng } from '../../layout-png.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(HERE, '..', 'fixtures');
const CORPUS = join(HERE, '..', '..', '..', '..', '..', 'shared', 'corpus', 'ios');

export const STATE = process.env.FAKE_XCRUN_STATE;
if (!STATE) {
  process.stderr.write('the iOS doubles need FAKE_XCRUN_STATE: a directory for the simulated simulator\n');
  process.exit(70);
}
mkdirSync(STATE, { recursive: true });

export const APP = 'com.example.recorded';
/** Both recordings come from one device with a 402 × 874 pt screen; its scale is taken to be 3. */
export const SCREEN = { widthPt: 402, heightPt: 874, scale: 3 };
export const SCREENS = {
  'account-settings': {
    dump: join(CORPUS, 'lycorp-jp-sim-use__Tests_Fixtures_list-detection_account-settings.raw.json'),
    colours: [
      [30, 90, 200],
      [235, 240, 250],
    ],
  },
  friends: {
    dump: join(FIXTURES, 'lycorp-jp-sim-use__Tests_Fixtures_SoftKeyboard_no-keyboard.raw.json'),
    colours: [
      [20, 160, 80],
      [245, 250, 240],
    ],
  },
  home: {
    dump: null,
    colours: [
      [90, 90, 90],
      [160, 160, 160],
    ],
  },
};

export const at = (...p) => join(STATE, ...p);
export const flag = (name) => existsSync(at(name));
/** A flag file's text, trimmed, or undefined when there is none. */
export const flagText = (name) => (flag(name) ? readFileSync(at(name), 'utf8').trim() : undefined);
export const bundleDir = () => at('Containers', 'Bundle');
export const dataDir = (bundleId) => at('Containers', 'Data', bundleId);

function writeAtomic(path, text) {
  writeFileSync(`${path}.${process.pid}`, text);
  renameSync(`${path}.${process.pid}`, path);
}

function infoPlist(bundleId, version) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n\t<key>CFBundleIdentifier</key>\n\t<string>${bundleId}</string>\n\t<key>CFBundleName</key>\n\t<string>LINE Dev</string>\n\t<key>CFBundleShortVersionString</key>\n\t<string>${version}</string>\n\t<key>CFBundleVersion</key>\n\t<string>1402010</string>\n</dict>\n</plist>\n`;
}

/** The world as it is; the first double to run sets it up (the recorded app installed, nothing running). */
export function world() {
  if (!existsSync(at('world.json'))) {
    const app = join(bundleDir(), 'Recorded.app');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'Info.plist'), infoPlist(APP, '14.2.1'));
    writeAtomic(at('world.json'), JSON.stringify({ states: {}, apps: { [APP]: app }, running: null, screen: 'account-settings' }));
  }
  return JSON.parse(readFileSync(at('world.json'), 'utf8'));
}

export function save(w) {
  writeAtomic(at('world.json'), JSON.stringify(w));
}

export function record(file, entry) {
  appendFileSync(at(file), `${JSON.stringify({ ...entry, pid: process.pid, at: Date.now() })}\n`);
}

/** The bundle id an .app declares (the doubles write XML Info.plists). */
export function bundleIdOf(appPath) {
  const text = readFileSync(join(appPath, 'Info.plist'), 'utf8');
  return /<key>CFBundleIdentifier<\/key>\s*<string>([^<]+)<\/string>/.exec(text)?.[1];
}

export function install(w, appPath) {
  const id = bundleIdOf(appPath);
  const dest = join(bundleDir(), appPath.split('/').pop());
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(bundleDir(), { recursive: true });
  cpSync(appPath, dest, { recursive: true });
  w.apps[id] = dest;
  return id;
}

export function uninstall(w, bundleId) {
  if (w.apps[bundleId]) rmSync(w.apps[bundleId], { recursive: true, force: true });
  rmSync(dataDir(bundleId), { recursive: true, force: true });
  delete w.apps[bundleId];
  if (w.running === bundleId) w.running = null;
}

export function erase(w) {
  rmSync(at('Containers'), { recursive: true, force: true });
  w.apps = {};
  w.running = null;
  w.screen = 'account-settings';
  w.privacy = {};
}

/** What the screen shows: the running app's current screen, or the home screen. */
export const currentScreen = (w = world()) => (w.running ? w.screen : 'home');

/** The screen as PNG at `scale` pixels per point, cached per screen and scale. */
export function screenPng(name, scale) {
  const cache = at('png-cache', `${name}@${scale}.png`);
  if (existsSync(cache)) return readFileSync(cache);
  const { colours, dump } = SCREENS[name];
  const width = Math.round(SCREEN.widthPt * scale);
  const height = Math.round(SCREEN.heightPt * scale);
  // A recorded screen is drawn from its dump's layout; the home screen, never recorded, is bands.
  const png = dump
    ? layoutPng(
        width,
        height,
        jsonBoxes(readFileSync(dump, 'utf8')).map((b) => ({ ...b, x: b.x * scale, y: b.y * scale, width: b.width * scale, height: b.height * scale })),
      )
    : bandsPng(width, height, 22 * scale, colours[0], colours[1]);
  mkdirSync(dirname(cache), { recursive: true });
  writeAtomic(cache, png);
  return png;
}

export function dumpText(name) {
  const dump = SCREENS[name].dump;
  // The home screen was never recorded: no SpringBoard dump exists in the corpus.
  return dump ? readFileSync(dump, 'utf8') : '[]';
}

/** Any app data left behind (what a session leaves, and what a reset must clear). */
export function leftovers() {
  const data = at('Containers', 'Data');
  if (!existsSync(data)) return [];
  return readdirSync(data, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(data, f)).isFile());
}

/** The deepest element of the current screen's recorded dump holding a point, with its children, or undefined. */
export function elementAt(x, y) {
  const holds = (el) => el.frame && x >= el.frame.x && x < el.frame.x + el.frame.width && y >= el.frame.y && y < el.frame.y + el.frame.height;
  const deepest = (elements) => {
    for (const el of [...elements].reverse()) {
      if (!holds(el)) continue;
      return deepest(el.children ?? []) ?? el;
    }
    return undefined;
  };
  return deepest(JSON.parse(dumpText(currentScreen())));
}

/**
 * What idb prints for both describe-all and describe-point when its companion has lost the
 * simulator (flag file `stale-companion`): a real recording, replayed byte for byte.
 */
export const staleCompanionAnswer = () => readFileSync(new URL('../../../fixtures/device-outputs/idb-describe-all.empty-sentinel.mint.json', import.meta.url));
