#!/usr/bin/env node
// A fake idb (fb-idb's CLI) with its real command lines (idb/cli/commands/hid.py, accessibility.py):
// `ui describe-all --json [--nested] --udid U` replays the recorded describe JSON of the screen the
// simulated app shows (flattened without --nested, as idb's default flat format is); `ui
// describe-point --json X Y` prints the deepest element of that dump holding the point, one
// element's object without its children, or {} when nothing holds it (COMPOSED: no recorded
// describe-point output was found; its fields are describe-all's, as idb builds both from the same
// accessibility element); `ui tap X Y [--duration S]`, `ui swipe X1 Y1 X2 Y2`, `ui text`, `ui key`,
// `ui button` are recorded in touches.jsonl (nothing arrives with the flag file `input-detached`).
// With the flag file `stale-companion`, describe-all and describe-point answer with the recorded
// empty sentinel of a companion that has lost the simulator (test/fixtures/device-outputs).
// Like fb-idb, it has no `--version` (argparse refuses it); `--help` text is composed from the
// argparse definitions.
import { currentScreen, dumpText, elementAt, flag, record, save, staleCompanionAnswer, world } from './lib/world.mjs';

const args = process.argv.slice(2);
record('log.jsonl', { tool: 'idb', args });

const usageError = (text) => {
  process.stderr.write(`usage: idb [-h] [--log {DEBUG,INFO,WARNING,ERROR,CRITICAL}] [--companion COMPANION] ...\nidb: error: ${text}\n`);
  process.exit(2);
};
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

if (args[0] === '--version') usageError('unrecognized arguments: --version');
if (args[0] !== 'ui') usageError(`argument command: invalid choice: '${args[0]}'`);
const command = args[1];

if (args.includes('--help')) {
  const help = {
    tap: 'usage: idb ui tap [-h] [--duration DURATION] [--udid UDID] [--log {DEBUG,INFO,WARNING,ERROR,CRITICAL}] [--json] x y\n\nTap On the Screen\n\npositional arguments:\n  x                     The x-coordinate\n  y                     The y-coordinate\n\noptions:\n  -h, --help            show this help message and exit\n  --duration DURATION   Press duration\n  --udid UDID           Udid of target, can also be set with the IDB_UDID env var\n  --json                Create json structured output\n',
    'describe-all':
      'usage: idb ui describe-all [-h] [--udid UDID] [--log {DEBUG,INFO,WARNING,ERROR,CRITICAL}] [--json] [--nested]\n\nDescribes Accessibility Information for the entire screen\n\noptions:\n  -h, --help            show this help message and exit\n  --udid UDID           Udid of target, can also be set with the IDB_UDID env var\n  --json                Create json structured output\n  --nested              Will report data in the newer nested format, rather than the flat one\n',
  }[command];
  if (!help) usageError(`argument command: invalid choice: '${command}'`);
  process.stdout.write(help);
  process.exit(0);
}

const udid = option('--udid');
if (!udid) usageError('no target: give --udid or set IDB_UDID');
// Positional arguments: what remains after the options that take a value and the flags.
const positional = [];
for (let i = 2; i < args.length; i++) {
  if (args[i] === '--') {
    positional.push(...args.slice(i + 1));
    break;
  }
  if (['--udid', '--duration', '--delta', '--log'].includes(args[i])) i++;
  else if (!args[i].startsWith('--')) positional.push(args[i]);
}
const int = (v, name) => {
  if (!/^-?\d+$/.test(v ?? '')) usageError(`argument ${name}: invalid int value: '${v}'`);
  return Number(v);
};
const deliver = (entry) => {
  if (!flag('input-detached')) record('touches.jsonl', { tool: 'idb', udid, ...entry });
};

/** idb's default format: every element in one flat list, without children. */
function flatten(elements) {
  return elements.flatMap(({ children = [], ...el }) => [el, ...flatten(children)]);
}

switch (command) {
  case 'describe-all': {
    if (flag('stale-companion')) {
      process.stdout.write(staleCompanionAnswer());
      break;
    }
    const dump = dumpText(currentScreen());
    process.stdout.write(args.includes('--nested') ? dump : JSON.stringify(flatten(JSON.parse(dump))));
    break;
  }
  case 'describe-point': {
    const x = int(positional[0], 'x');
    const y = int(positional[1], 'y');
    if (flag('stale-companion')) {
      process.stdout.write(staleCompanionAnswer());
      break;
    }
    const hit = elementAt(x, y);
    const { children, ...element } = hit ?? {};
    process.stdout.write(JSON.stringify(hit ? element : {}));
    break;
  }
  case 'tap': {
    const x = int(positional[0], 'x');
    const y = int(positional[1], 'y');
    const duration = option('--duration');
    deliver(duration ? { kind: 'press', x, y, holdS: Number(duration) } : { kind: 'tap', x, y });
    break;
  }
  case 'swipe': {
    const [x1, y1, x2, y2] = positional.map((v, i) => int(v, ['x_start', 'y_start', 'x_end', 'y_end'][i]));
    deliver({ kind: 'swipe', x: x1, y: y1, to: { x: x2, y: y2 }, durationS: Number(option('--duration') ?? 0), delta: Number(option('--delta') ?? 0) });
    break;
  }
  case 'text':
    deliver({ kind: 'type', text: positional[0] ?? '' });
    break;
  case 'key':
    deliver({ kind: 'key', code: int(positional[0], 'key') });
    break;
  case 'button': {
    deliver({ kind: 'button', name: positional[0] });
    if (positional[0] === 'HOME' && !flag('input-detached')) {
      const w = world();
      w.running = null;
      save(w);
    }
    break;
  }
  default:
    usageError(`argument command: invalid choice: '${command}'`);
}
