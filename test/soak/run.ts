// npm run soak [-- --minutes N --sessions N --subscribers N --frame-budget-mb N
//                  --worker-node-options=S --worker-preload=LIB --relaunch-every M --rounds-every M]: the long soak (30 minutes, 20
// agent sessions, 100 subscribers by default; the worker's frame store budget per device is its
// default unless given). --worker-node-options is for diagnosing the worker: "=--heapsnapshot-signal=SIGUSR2
// --diagnostic-dir=/tmp/snaps" lets `kill -USR2` take heap snapshots (each one stops the worker
// for tens of seconds: --host-timeout-ms 180000 keeps the gateway from calling its host lost).
// --worker-preload runs the worker (and what it starts) with LD_PRELOAD=LIB, to compare allocators
// (glibc's malloc is known to fragment under image churn like sharp's; Debian's libjemalloc2 gives
// /usr/lib/x86_64-linux-gnu/libjemalloc.so.2). Writes bench/results/soak.{json,md} and exits 1 on
// any error or a gateway that kept descriptors its clients had given back. At the end every page
// collects its garbage and Chromium is measured again (collect.ts), which tells garbage waiting
// from memory kept. --relaunch-every M has every agent relaunch its app every M minutes; once all
// have, every page collects its garbage and Chromium is measured (a table of cycles): what the
// renderers hold then is not the pages' state. --rounds-every M has every agent release its session
// every M minutes; once every device is reset, Chromium is measured with no session on it and a new
// round of sessions starts (a table of rounds): what the browser and its GPU process keep between
// rounds must not climb. Interrupted, it takes its gateway, worker and
// browsers down with it.
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killAll } from '../helpers/processes.js';
import { runSoak, soakMarkdown } from './soak.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    sessions: { type: 'string', default: '20' },
    subscribers: { type: 'string', default: '100' },
    'frame-budget-mb': { type: 'string' },
    'worker-node-options': { type: 'string' },
    'worker-preload': { type: 'string' },
    'host-timeout-ms': { type: 'string' },
    'relaunch-every': { type: 'string' },
    'rounds-every': { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const sessions = Number(values.sessions);
const subscribers = Number(values.subscribers);
if (![minutes, sessions, subscribers].every((n) => Number.isFinite(n) && n > 0)) {
  console.error('soak: --minutes, --sessions and --subscribers take positive numbers');
  process.exit(2);
}
const budgetMB = values['frame-budget-mb'] === undefined ? undefined : Number(values['frame-budget-mb']);
if (budgetMB !== undefined && !(budgetMB >= 1)) {
  console.error('soak: --frame-budget-mb takes a number of megabytes, at least 1');
  process.exit(2);
}
const workerEnv: Record<string, string> = {
  ...(budgetMB === undefined ? {} : { SIMFLEET_FRAME_BUDGET_BYTES: String(Math.round(budgetMB * 2 ** 20)) }),
  ...(values['worker-node-options'] ? { NODE_OPTIONS: values['worker-node-options'] } : {}),
  ...(values['worker-preload'] ? { LD_PRELOAD: values['worker-preload'] } : {}),
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void killAll().finally(() => process.exit(130)));
}
const gatewayEnv: Record<string, string> = values['host-timeout-ms'] ? { SIMFLEET_HOST_TIMEOUT_MS: String(Number(values['host-timeout-ms'])) } : {};
const relaunchEvery = values['relaunch-every'] === undefined ? undefined : Number(values['relaunch-every']);
if (relaunchEvery !== undefined && !(relaunchEvery > 0 && relaunchEvery < minutes)) {
  console.error('soak: --relaunch-every takes a number of minutes shorter than the soak');
  process.exit(2);
}
const roundsEvery = values['rounds-every'] === undefined ? undefined : Number(values['rounds-every']);
if (roundsEvery !== undefined && !(roundsEvery > 0 && roundsEvery < minutes)) {
  console.error('soak: --rounds-every takes a number of minutes shorter than the soak');
  process.exit(2);
}
const report = await runSoak({
  durationMs: minutes * 60_000,
  sessions,
  subscribers,
  sampleMs: 5000,
  workerEnv,
  gatewayEnv,
  collectAtEnd: true,
  progress: (l) => console.error(`soak: ${l}`),
  ...(relaunchEvery === undefined ? {} : { relaunchEveryMs: relaunchEvery * 60_000 }),
  ...(roundsEvery === undefined ? {} : { roundEveryMs: roundsEvery * 60_000 }),
});
const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
await mkdir(dir, { recursive: true });
await writeFile(`${dir}soak.json`, `${JSON.stringify(report, null, 2)}\n`);
const md = soakMarkdown(report);
await writeFile(`${dir}soak.md`, md);
console.log(md);
const leaked = report.gatewayFds.after > report.gatewayFds.before + 10;
process.exit(report.errors.length || leaked ? 1 : 0);
