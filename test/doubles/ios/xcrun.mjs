#!/usr/bin/env node
// A fake `xcrun` for the iOS backend's tests: `xcrun --find simctl` and the `xcrun simctl`
// subcommands the backend uses, over the shared simulated world (lib/world.mjs). `list devices -j`
// replays a real recorded output (fixtures/, FAKE_XCRUN_LIST picks which) with the states this
// double has changed laid over it; failures print simctl's real error text (fixtures/simctl-errors.json).
// Every call is recorded in log.jsonl. Flag files in the state directory make it misbehave:
// `fail-getenv` (getenv answers nothing).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, SCREEN, currentScreen, dataDir, erase, flag, install, record, save, screenPng, uninstall, world } from './lib/world.mjs';

const ERR = JSON.parse(readFileSync(join(FIXTURES, 'simctl-errors.json'), 'utf8'));
const PRIVACY_SERVICES = [
  'all',
  'calendar',
  'contacts-limited',
  'contacts',
  'location',
  'location-always',
  'photos-add',
  'photos',
  'media-library',
  'microphone',
  'motion',
  'reminders',
  'siri',
];
const LIST = join(FIXTURES, process.env.FAKE_XCRUN_LIST ?? 'simctl-list-devices.xcode15.json');

const args = process.argv.slice(2);
record('log.jsonl', { tool: 'xcrun', args });

const fail = (text, code) => {
  process.stderr.write(text);
  process.exit(code);
};

if (args[0] === '--find' && args[1] === 'simctl') {
  process.stdout.write('/Applications/Xcode.app/Contents/Developer/usr/bin/simctl\n');
  process.exit(0);
}
if (args[0] !== 'simctl') fail(`xcrun: error: unable to find utility "${args[0]}", not a developer tool or in PATH\n`, 72);

const [sub, ...rest] = args.slice(1);
const w = world();
const recorded = JSON.parse(readFileSync(LIST, 'utf8'));
const all = Object.values(recorded.devices).flat();
const stateOf = (udid) => w.states[udid] ?? all.find((d) => d.udid === udid)?.state;

/** The udid argument must name a simulator in the recorded list. */
function device(udid) {
  if (!all.some((d) => d.udid === udid)) fail(ERR.invalidDevice.replace('00000000-0000-0000-0000-000000000000', udid), 148);
  return udid;
}
function booted(udid) {
  device(udid);
  if (stateOf(udid) !== 'Booted') fail(ERR.notBooted, 149);
}

switch (sub) {
  case 'list': {
    for (const list of Object.values(recorded.devices)) for (const d of list) if (w.states[d.udid]) d.state = w.states[d.udid];
    process.stdout.write(`${JSON.stringify(recorded, null, 2)}\n`);
    break;
  }
  case 'boot': {
    const udid = device(rest[0]);
    if (stateOf(udid) === 'Booted') fail(ERR.alreadyBooted, 149);
    w.states[udid] = 'Booted';
    save(w);
    break;
  }
  case 'bootstatus': {
    booted(rest[0]);
    // Composed: the real command prints progress lines while it waits; the backend ignores them.
    process.stdout.write(`Monitoring boot status for ${rest[0]}.\nDevice already booted, nothing to do.\n`);
    break;
  }
  case 'shutdown': {
    const udid = device(rest[0]);
    if (stateOf(udid) !== 'Booted') fail(ERR.alreadyShut, 149);
    w.states[udid] = 'Shutdown';
    w.running = null;
    save(w);
    break;
  }
  case 'erase': {
    const udid = device(rest[0]);
    // Composed in simctl's form: erasing needs a shut-down device.
    if (stateOf(udid) === 'Booted')
      fail(
        'An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):\nUnable to erase contents and settings in current state: Booted\n',
        149,
      );
    erase(w);
    save(w);
    break;
  }
  case 'install': {
    booted(rest[0]);
    install(w, rest[1]);
    save(w);
    break;
  }
  case 'uninstall': {
    booted(rest[0]);
    uninstall(w, rest[1]);
    save(w);
    break;
  }
  case 'launch': {
    booted(rest[0]);
    const bundleId = rest[1];
    if (!w.apps[bundleId]) fail(ERR.noApp.replaceAll('com.example.nope', bundleId), 4);
    w.running = bundleId;
    w.screen = 'account-settings';
    save(w);
    process.stdout.write(`${bundleId}: ${40000 + (process.pid % 10000)}\n`);
    break;
  }
  case 'terminate': {
    booted(rest[0]);
    if (w.running !== rest[1]) fail(ERR.notRunning.replace('com.apple.mobilesafari', rest[1]), 3);
    w.running = null;
    save(w);
    break;
  }
  case 'openurl': {
    booted(rest[0]);
    if (!/^https?:/.test(rest[1] ?? '')) fail(ERR.noHandler.replace('zzzz://nothing', rest[1]), 115);
    break;
  }
  case 'privacy': {
    // simctl privacy <udid> grant|revoke|reset <service> [<bundle>]; the services are simctl's
    // own help list. Composed: an unknown service (camera, notifications) fails with exit 1 and
    // "Operation not permitted", as public notes on Xcode 15–26 report; the exact line is not recorded.
    booted(rest[0]);
    const [, action, service, bundleId] = rest;
    if (!PRIVACY_SERVICES.includes(service) || !['grant', 'revoke', 'reset'].includes(action)) fail(`Failed to ${action} access: Operation not permitted\n`, 1);
    const apps = (w.privacy ??= {});
    const of = (apps[bundleId ?? '*'] ??= {});
    const services = service === 'all' ? PRIVACY_SERVICES.filter((x) => x !== 'all') : [service];
    for (const x of services) {
      if (action === 'reset') delete of[x];
      else of[x] = action === 'grant' ? 'granted' : 'denied';
    }
    // "Some permission changes will terminate the application if running" (simctl's help).
    if (action !== 'grant' && w.running === bundleId) w.running = null;
    save(w);
    break;
  }
  case 'io': {
    booted(rest[0]);
    if (rest[1] !== 'screenshot') fail(`Unrecognized io operation: ${rest[1]}\n`, 64);
    const target = rest.at(-1);
    const png = screenPng(currentScreen(w), SCREEN.scale);
    if (target === '-') process.stdout.write(png);
    else writeFileSync(target, png);
    break;
  }
  case 'appinfo': {
    device(rest[0]);
    const bundleId = rest[1];
    const path = w.apps[bundleId];
    if (!path) {
      // Composed: what a public test claims simctl prints for an app that is not installed.
      process.stdout.write(`{\n    CFBundleIdentifier = "${bundleId}";\n}\n`);
      break;
    }
    // The layout of a real recording (fixtures/simctl-appinfo.neondrift.txt), this app's values.
    // Like that recording it has no CFBundleShortVersionString: the version is in Info.plist.
    const container = `file://${path.replace(/[^/]+$/, '')}`;
    process.stdout.write(
      `{\n    ApplicationType = User;\n    Bundle = "file://${path}/";\n    BundleContainer = "${container}";\n    CFBundleDisplayName = "LINE Dev";\n    CFBundleExecutable = Recorded;\n    CFBundleIdentifier = "${bundleId}";\n    CFBundleName = "LINE Dev";\n    CFBundleVersion = 1402010;\n    DataContainer = "file://${dataDir(bundleId)}/";\n    GroupContainers =     {\n    };\n    Path = "${path}";\n    SBAppTags =     (\n    );\n}\n`,
    );
    break;
  }
  case 'getenv': {
    booted(rest[0]);
    // Composed: an unknown variable makes the real command fail; the exact words are not known here.
    if (flag('fail-getenv')) fail(`Unable to find ${rest[1]} in the simulator's environment\n`, 1);
    const values = {
      SIMULATOR_MAINSCREEN_WIDTH: String(SCREEN.widthPt * SCREEN.scale),
      SIMULATOR_MAINSCREEN_HEIGHT: String(SCREEN.heightPt * SCREEN.scale),
      SIMULATOR_MAINSCREEN_SCALE: SCREEN.scale.toFixed(6),
    };
    if (!(rest[1] in values)) fail(`Unable to find ${rest[1]} in the simulator's environment\n`, 1);
    process.stdout.write(`${values[rest[1]]}\n`);
    break;
  }
  default:
    fail(`Unrecognized subcommand: ${sub}\n`, 64);
}
