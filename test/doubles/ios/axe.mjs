#!/usr/bin/env node
// A fake AXe (cameroncooke/AXe) with its real command lines (Sources/AXe/Commands/*.swift):
// `describe-ui --udid U` replays the recorded describe-ui JSON of the screen the simulated app shows
// (lib/world.mjs); tap, touch, swipe, type, key and button are recorded in touches.jsonl. With the
// flag file `input-detached` in the state directory, input is accepted (exit 0, the usual output)
// and reaches nothing, as when the simulator's input service has detached. `--version` prints
// FAKE_AXE_VERSION (default 1.6.0; "staging-main-58-51cfaf7-1-g52a7bff-dirty" is a recorded staging
// build's), and `describe-ui --point X,Y` (1.6.0 and later) prints the element at a point.
import { readFileSync } from 'node:fs';
import { currentScreen, dumpText, elementAt, flag, flagText, record, save, world } from './lib/world.mjs';

const args = process.argv.slice(2);
record('log.jsonl', { tool: 'axe', args });

const fail = (text, code = 64) => {
  process.stderr.write(`Error: ${text}\n`);
  process.exit(code);
};
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const number = (name) => {
  const v = Number(option(name));
  if (option(name) === undefined || !Number.isFinite(v)) fail(`Missing or invalid value for '${name}'`);
  return v;
};

// The version this double pretends to be: the state directory's `axe-version` file (one per
// simulated host, so suites can run several), else FAKE_AXE_VERSION, else 1.6.0.
const version = flagText('axe-version') ?? process.env.FAKE_AXE_VERSION ?? '1.6.0';
if (args[0] === '--version') {
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
const command = args[0];
// Help texts are AXe's own, recorded from a staging build on Xcode 26.5 (Tests/Goldens in
// cameroncooke/AXe); builds before 1.6.0 had no --point, so its lines are cut for them.
if (args.includes('--help') || args.includes('-h')) {
  const golden = { 'describe-ui': 'axe-golden.help-describe-ui.stdout.txt', touch: 'axe-golden.help-touch.stdout.txt', tap: 'axe-golden.help-tap.stdout.txt' }[
    command
  ];
  if (!golden) fail(`Unexpected argument '${command}'`);
  let help = readFileSync(new URL(`../../fixtures/device-outputs/${golden}`, import.meta.url), 'utf8');
  if (!hasPoint()) help = help.replace(/ \[--point <x,y>\]/, '').replace(/ {2}--point <x,y>[\s\S]*?(?=\n {2}--)/, '');
  process.stdout.write(help);
  process.exit(0);
}

/** describe-ui --point arrived in 1.6.0; staging and source builds are current. */
function hasPoint() {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m || version.startsWith('0.0.0')) return true;
  return Number(m[1]) > 1 || (Number(m[1]) === 1 && Number(m[2]) >= 6);
}
const udid = option('--udid');
if (!udid) fail("Missing expected argument '--udid <udid>'");

/** Input as the app would receive it, unless the input service has detached. */
function deliver(entry) {
  if (!flag('input-detached')) record('touches.jsonl', { tool: 'axe', udid, ...entry });
}

switch (command) {
  case 'describe-ui': {
    const point = option('--point');
    if (point === undefined) {
      process.stdout.write(dumpText(currentScreen()));
      break;
    }
    if (!hasPoint()) fail("Unknown option '--point'");
    const [x, y] = point.split(',').map(Number);
    if (!Number.isFinite(x) || !Number.isFinite(y) || x < 0 || y < 0) fail('--point must be in the form x,y using non-negative numbers.');
    // AXe prints the element at the point as one object, nested with its children (COMPOSED from
    // the recorded screen: no recorded --point answer exists).
    process.stdout.write(`${JSON.stringify(elementAt(x, y) ?? {})}\n`);
    break;
  }
  case 'tap': {
    const x = number('-x');
    const y = number('-y');
    deliver({ kind: 'tap', x, y });
    process.stdout.write(`✓ Tap at (${x}, ${y}) completed successfully\n`);
    break;
  }
  case 'touch': {
    if (!args.includes('--down') && !args.includes('--up')) fail('At least one of --down or --up must be specified.');
    deliver({
      kind: 'press',
      x: number('-x'),
      y: number('-y'),
      down: args.includes('--down'),
      up: args.includes('--up'),
      holdS: Number(option('--delay') ?? 0.1),
    });
    break;
  }
  case 'swipe': {
    const from = { x: number('--start-x'), y: number('--start-y') };
    const to = { x: number('--end-x'), y: number('--end-y') };
    if (from.x === to.x && from.y === to.y) fail('Start and end points must be different.');
    deliver({ kind: 'swipe', x: from.x, y: from.y, to, durationS: Number(option('--duration') ?? 1), delta: Number(option('--delta') ?? 50) });
    break;
  }
  case 'type': {
    const text = args.includes('--stdin') ? readFileSync(0, 'utf8') : args[1];
    // AXe reads stdin line by line and joins the lines with "\n", dropping the last newline.
    deliver({ kind: 'type', text: text.replace(/\n$/, '') });
    break;
  }
  case 'key':
    deliver({ kind: 'key', code: Number(args[1]) });
    break;
  case 'button': {
    deliver({ kind: 'button', name: args[1] });
    if (args[1] === 'home' && !flag('input-detached')) {
      const w = world();
      w.running = null;
      save(w);
    }
    break;
  }
  default:
    fail(`Unexpected argument '${command}'`);
}
