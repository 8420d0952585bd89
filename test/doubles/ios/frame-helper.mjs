#!/usr/bin/env node
// A double of the native frame helper (native/ios-frames) speaking native/ios-frames/PROTOCOL.md
// exactly: hello, attach → attached, an initial frame, then a frame whenever the simulated screen
// changes (lib/world.mjs, looked at every 50 ms), snapshot, stats, quit → bye. Frames are PNGs at
// one pixel per point with the whole frame as damage. The file `frame-helper-mode` in the state
// directory makes it misbehave: `exit` (dies before hello), `wrong-version` (hello with protocol
// 2), `silent` (never says hello), `garbage` (a line that is not the protocol), `exit-after-attach`
// (attaches, sends its initial frame, then dies).
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { at, currentScreen, record, screenPng, SCREEN } from './lib/world.mjs';

const mode = existsSync(at('frame-helper-mode')) ? readFileSync(at('frame-helper-mode'), 'utf8').trim() : 'ok';
record('log.jsonl', { tool: 'frame-helper', mode });

const send = (verb, body, payload) => {
  process.stdout.write(`${verb} ${JSON.stringify(body)}\n`);
  if (payload) process.stdout.write(payload);
};

if (mode === 'exit') {
  process.stderr.write('ios-frames: Screen Recording permission has not been granted\n');
  process.exit(3);
}
if (mode === 'garbage') process.stdout.write('Welcome to ios-frames!\n');
else if (mode !== 'silent') send('hello', { protocol: mode === 'wrong-version' ? 2 : 1, helper: 'simfleet-ios-frames-double', version: '0.0.0' });

let seq = 0;
let attached = false;
let shown;
let sent = 0;
const frame = (reason, id) => {
  const png = screenPng(currentScreen(), 1);
  const w = SCREEN.widthPt;
  const h = SCREEN.heightPt;
  if (reason !== 'snapshot') sent++;
  send(
    'frame',
    { seq: ++seq, format: 'png', width: w, height: h, bytes: png.length, damage: [[0, 0, w, h]], reason, ...(id === undefined ? {} : { id }), encodeMs: 1.5 },
    png,
  );
};

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const m = /^([a-z_]+) (\{.*\})$/.exec(line);
  if (!m) return send('error', { code: 'BAD_COMMAND', message: `not \`verb {json}\`: ${line.slice(0, 60)}`, hint: 'see PROTOCOL.md', fatal: false });
  const [, verb, json] = m;
  const body = JSON.parse(json);
  if (verb === 'attach') {
    attached = true;
    send('attached', { window: `${body.name} – ${body.runtime}`, widthPx: SCREEN.widthPt, heightPx: SCREEN.heightPt, pixelsPerPoint: 1 });
    shown = currentScreen();
    frame('initial');
    if (mode === 'exit-after-attach') setTimeout(() => process.exit(4), 200);
    setInterval(() => {
      const now = currentScreen();
      if (now !== shown) {
        shown = now;
        frame('change');
      }
    }, 50);
  } else if (verb === 'snapshot') {
    if (!attached) send('error', { code: 'NOT_ATTACHED', message: 'snapshot before attach', hint: 'send attach first', fatal: false, id: body.id });
    else frame('snapshot', body.id);
  } else if (verb === 'stats') {
    send('stats', { frames: sent, idle: 0, dropped: 0, medianEncodeMs: sent ? 1.5 : null });
  } else if (verb === 'quit') {
    send('bye', {});
    process.exit(0);
  } else {
    send('error', { code: 'BAD_COMMAND', message: `unknown verb ${verb}`, hint: 'see PROTOCOL.md', fatal: false });
  }
});
lines.on('close', () => process.exit(0));
