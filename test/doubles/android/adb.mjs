#!/usr/bin/env node
// A fake adb for tests: the same command line as the real one, answering from recorded real
// outputs (fixtures/, see fixtures/README.md) and from the pretend emulator's state in the folder
// named by FAKE_ADB_STATE (see screen.mjs). Like real adb, `shell` joins its arguments into one
// command line that the device's shell splits again, so quoting mistakes show up here too.
// With a file `input-detached` in the state folder, input commands succeed and change nothing.
import { readFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import {
  APPS,
  FIXTURES,
  LAUNCHER,
  decodeInputText,
  dumpOf,
  goHome,
  inputDetached,
  isInstalled,
  linkAt,
  log,
  nextScreen,
  pixelSize,
  readState,
  recordTouch,
  screenPng,
  showApp,
  updateState,
} from './screen.mjs';

/**
 * The runtime permissions this pretend device knows (a release's platform manifest): a name outside
 * it is an unknown permission, as POST_NOTIFICATIONS is before API 33.
 */
const RUNTIME = new Set(
  [
    'ACCESS_FINE_LOCATION',
    'ACCESS_COARSE_LOCATION',
    'ACCESS_BACKGROUND_LOCATION',
    'CAMERA',
    'RECORD_AUDIO',
    'READ_CONTACTS',
    'WRITE_CONTACTS',
    'READ_MEDIA_IMAGES',
    'READ_MEDIA_VIDEO',
    'READ_EXTERNAL_STORAGE',
    'READ_CALENDAR',
    'WRITE_CALENDAR',
    'ACTIVITY_RECOGNITION',
    'POST_NOTIFICATIONS',
  ].map((n) => `android.permission.${n}`),
);

const dir = process.env.FAKE_ADB_STATE;
if (!dir) fail('fake adb: FAKE_ADB_STATE is not set', 2);
const fixture = (name) => readFileSync(new URL(name, FIXTURES), 'utf8');
const out = (text) => process.stdout.write(text);
function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

let args = process.argv.slice(2);
log(dir, `adb ${args.join(' ')}`);
let serial;
if (args[0] === '-s') {
  serial = args[1];
  args = args.slice(2);
}
const state = readState(dir);
const [command, ...rest] = args;

if (command === 'version') out(fixture('adb-version.txt'));
else if (command === 'devices') out(devicesList(rest.includes('-l')));
else if (command === 'start-server' || command === 'kill-server') out('');
else {
  const device = pick();
  if (command === 'wait-for-device') out('');
  else if (command === 'shell') runScript(rest.join(' '), device);
  else if (command === 'exec-out') runScript(rest.join(' '), device);
  else if (command === 'install') install(rest);
  else fail(`adb: unknown command ${command}`);
}

function devicesList(long) {
  if (state.devicesOutput !== undefined) return state.devicesOutput;
  // adb's own layout: "%-22s %s", the attributes, and transport_id last (transport.cpp).
  const lines = state.devices.map((d) => {
    if (!long) return `${d.serial}\t${d.state}`;
    const attrs = d.state === 'device' ? ` product:${d.product} model:${d.model} device:${d.device}` : '';
    return `${d.serial.padEnd(22)} ${d.state}${attrs} transport_id:${d.transportId}`;
  });
  return `List of devices attached\n${lines.map((l) => `${l}\n`).join('')}\n`;
}

function pick() {
  const devices = state.devices;
  const device = serial ? devices.find((d) => d.serial === serial) : devices.length === 1 ? devices[0] : undefined;
  if (!device) fail(serial ? `adb: device '${serial}' not found` : devices.length ? 'adb: more than one device/emulator' : 'adb: no devices/emulators found');
  if (device.state === 'offline') fail('adb: device offline');
  if (device.state === 'unauthorized') {
    fail(
      "adb: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.",
    );
  }
  return device;
}

/** The device shell's job: split the line into commands and words (quotes, backslash, ; and &&). */
function parse(line) {
  const commands = [{ words: [], after: ';' }];
  let word = null;
  const push = () => {
    if (word !== null) commands.at(-1).words.push(word);
    word = null;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) fail('/system/bin/sh: syntax error: unterminated quoted string', 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      for (; j < line.length && line[j] !== '"'; j++) s += line[j] === '\\' && '"\\$`'.includes(line[j + 1]) ? line[++j] : line[j];
      if (j >= line.length) fail('/system/bin/sh: syntax error: unterminated quoted string', 1);
      word = (word ?? '') + s;
      i = j;
    } else if (c === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else if (c === ';' || (c === '&' && line[i + 1] === '&')) {
      push();
      commands.push({ words: [], after: c === '&' ? '&&' : ';' });
      if (c === '&') i++;
    } else if (/\s/.test(c)) {
      push();
    } else if ('|<>&$`()'.includes(c)) {
      fail(`/system/bin/sh: the fake adb does not run shell syntax like "${c}"; quote your arguments`, 2);
    } else {
      word = (word ?? '') + c;
    }
  }
  push();
  return commands.filter((c) => c.words.length > 0);
}

/** Runs the commands in order; one after && runs only when the one before succeeded. */
function runScript(line, device) {
  let code = 0;
  for (const { words, after } of parse(line)) {
    if (after === '&&' && code !== 0) continue;
    code = run(words, device);
  }
  process.exitCode = code;
}

function run([cmd, ...a], device) {
  switch (cmd) {
    case 'getprop':
      out(`${device.props[a[0]] ?? ''}\n`);
      return 0;
    case 'wm':
      if (a[0] === 'size') out(device.wmSize);
      else if (a[0] === 'density') out(device.wmDensity);
      else return unknown(`wm ${a[0]}`);
      return 0;
    case 'screencap':
      if (a[0] !== '-p') return unknown(`screencap ${a.join(' ')}`);
      process.stdout.write(screenPng(dir, readState(dir).screen, pixelSize(device)));
      return 0;
    case 'uiautomator':
      if (a[0] !== 'dump') return unknown(`uiautomator ${a[0]}`);
      out(`${dumpOf(readState(dir).screen)}UI hierchary dumped to: ${a[1] ?? '/sdcard/window_dump.xml'}\n`);
      return 0;
    case 'input':
      return input(a);
    case 'am':
      return am(a);
    case 'pm':
      return pm(a);
    case 'monkey':
      return monkey(a);
    case 'dumpsys':
      return dumpsys(a);
    default:
      return unknown(cmd);
  }
}

function unknown(what) {
  process.stderr.write(`/system/bin/sh: ${what}: inaccessible or not found\n`);
  return 127;
}

function input([kind, ...a]) {
  if (inputDetached(dir)) return 0;
  const n = a.map(Number);
  if (kind === 'tap') {
    recordTouch(dir, { via: 'adb', action: 'tap', x: n[0], y: n[1] });
    // A tap on a row that leads somewhere goes there, as the app would.
    updateState(dir, (st) => void (st.screen = linkAt(st.screen, n[0], n[1]) ?? st.screen));
  } else if (kind === 'swipe') recordTouch(dir, { via: 'adb', action: 'swipe', x: n[0], y: n[1], x2: n[2], y2: n[3], ms: n[4] });
  else if (kind === 'motionevent') recordTouch(dir, { via: 'adb', action: a[0].toLowerCase(), x: n[1], y: n[2] });
  else if (kind === 'text') log(dir, `typed ${JSON.stringify(decodeInputText(a[0] ?? ''))}`);
  else if (kind === 'keyevent') {
    log(dir, `key ${a[0]}`);
    if (a[0] === 'KEYCODE_HOME') updateState(dir, goHome);
    if (a[0] === 'KEYCODE_BACK')
      updateState(dir, (s) => (APPS[s.foreground]?.screens.indexOf(s.screen) > 0 ? (s.screen = APPS[s.foreground].screens[0]) : goHome(s)));
  } else {
    process.stderr.write(`Error: Unknown command: ${kind}\n`);
    return 1;
  }
  return 0;
}

function am([sub, ...a]) {
  if (sub === 'force-stop') {
    updateState(dir, (s) => s.foreground === a[0] && goHome(s));
    return 0;
  }
  if (sub === 'start') {
    const url = a[a.indexOf('-d') + 1] ?? '';
    out(`Starting: Intent { act=android.intent.action.VIEW dat=${url} }\n`);
    // Only web links have a handler on the pretend device (its browser, drawn as the next screen).
    if (!/^https?:/.test(url)) out(fixture('am-start-unresolved.txt').split('\n').slice(1).join('\n'));
    else updateState(dir, nextScreen);
    return 0;
  }
  return unknown(`am ${sub}`);
}

/**
 * `adb install [-r] PATH`. The pretend device reads a pretend APK: a file whose first line is
 * `fake-apk package=<name>`; anything else is refused as real adb refuses a file that is no APK.
 */
function install(a) {
  const path = a.filter((x) => !x.startsWith('-')).at(-1);
  if (!path || !existsSync(path)) {
    process.stderr.write(`adb: failed to stat ${path}: No such file or directory\n`);
    process.exit(1);
  }
  out('Performing Streamed Install\n');
  const pkg = /^fake-apk package=([\w.]+)/.exec(readFileSync(path, 'utf8'))?.[1];
  if (!pkg || !APPS[pkg]) {
    out(fixture('install-failed-not-apk.txt').replaceAll('PATH', path));
    process.exit(1);
  }
  updateState(dir, (s) => void (s.installed = [...new Set([...(s.installed ?? []), pkg])]));
  out('Success\n');
}

function pm([sub, pkg, perm, ...flags]) {
  if (sub === 'path') {
    if (!isInstalled(readState(dir), pkg)) return 1;
    out(`package:/system/priv-app/${pkg}/${pkg}.apk\n`);
    return 0;
  }
  if (sub === 'clear') {
    if (!isInstalled(readState(dir), pkg)) {
      out('Failed\n');
      return 1;
    }
    updateState(dir, (s) => {
      s.data[pkg] = 'clean';
      // Clearing an app's data resets its runtime permissions too (PackageManagerService).
      if (s.permissions) delete s.permissions[pkg];
      if (s.foreground === pkg) goHome(s);
    });
    out('Success\n');
    return 0;
  }
  if (sub === 'grant' || sub === 'revoke') return permission(sub, pkg, perm);
  if (sub === 'clear-permission-flags') {
    if (!isInstalled(readState(dir), pkg)) return pmRefuses(sub, `java.lang.IllegalArgumentException: Unknown package: ${pkg}`);
    updateState(dir, (s) => {
      const p = (s.permissions ??= {})[pkg]?.[perm];
      if (p && flags.includes('user-set')) p.userSet = false;
    });
    return 0;
  }
  return unknown(`pm ${sub}`);
}

/** `pm grant|revoke PKG PERM`: the pretend device's permission state, refusals in pm's words. */
function permission(verb, pkg, perm) {
  const now = readState(dir);
  if (!isInstalled(now, pkg)) return pmRefuses(verb, `java.lang.IllegalArgumentException: Unknown package: ${pkg}`);
  if (!RUNTIME.has(perm)) return pmRefuses(verb, `java.lang.IllegalArgumentException: Unknown permission: ${perm}`);
  if (!(APPS[pkg].requested ?? []).includes(perm)) {
    process.stderr.write(
      fixture('pm-grant-not-requested.txt').replaceAll('com.example.app', pkg).replaceAll('android.permission.CAMERA', perm).replaceAll("'grant'", `'${verb}'`),
    );
    return 255;
  }
  updateState(dir, (s) => void (((s.permissions ??= {})[pkg] ??= {})[perm] = { granted: verb === 'grant', userSet: true }));
  // Revoking a permission the app held stops it, as Android does.
  if (verb === 'revoke' && now.foreground === pkg) updateState(dir, goHome);
  return 0;
}

function pmRefuses(verb, line) {
  process.stderr.write(`\nException occurred while executing '${verb}':\n${line}\n`);
  return 255;
}

function monkey(a) {
  const pkg = a[a.indexOf('-p') + 1];
  if (!isInstalled(readState(dir), pkg) || !APPS[pkg]?.activity) {
    process.stderr.write(fixture('monkey-no-activities.txt'));
    return 1;
  }
  updateState(dir, (s) => showApp(s, pkg));
  out(fixture('monkey-launched.txt').replace('com.android.settings', pkg));
  return 0;
}

function dumpsys([service, arg]) {
  const now = readState(dir);
  if (service === 'activity' && arg === 'activities') {
    const activity = now.foreground === LAUNCHER ? '.NexusLauncherActivity' : (APPS[now.foreground]?.activity ?? '.MainActivity');
    out(fixture('dumpsys-activity-api36.txt').replaceAll('com.workspacebrowser/com.workspacebrowser.MainActivity', `${now.foreground}/${activity}`));
    return 0;
  }
  if (service === 'package') {
    if (!APPS[arg] && arg !== LAUNCHER) {
      out(`Unable to find package: ${arg}\n`);
      return 0;
    }
    const version = APPS[arg]?.versionName ?? '14';
    out(fixture('dumpsys-package-lufthansa.txt').replaceAll('com.lufthansa.android.lufthansa', arg).replace('versionName=4.7.1', `versionName=${version}`));
    return 0;
  }
  return unknown(`dumpsys ${service}`);
}
