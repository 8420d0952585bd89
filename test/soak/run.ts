// npm run soak [-- --minutes N --sessions N --subscribers N --frame-budget-mb N]: the long soak (30
// minutes, 20 agent sessions, 100 subscribers by default; the worker's frame store budget per device
// is its default unless given). Writes bench/results/soak.{json,md} and exits 1 on any
// error or a gateway that kept descriptors its clients had given back.
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runSoak, soakMarkdown } from './soak.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, sessions: { type: 'string', default: '20' }, subscribers: { type: 'string', default: '100' }, 'frame-budget-mb': { type: 'string' } } });
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
const workerEnv: Record<string, string> = budgetMB === undefined ? {} : { SIMFLEET_FRAME_BUDGET_BYTES: String(Math.round(budgetMB * 2 ** 20)) };
const report = await runSoak({ durationMs: minutes * 60_000, sessions, subscribers, sampleMs: 5000, workerEnv, progress: (l) => console.error(`soak: ${l}`) });
const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
await mkdir(dir, { recursive: true });
await writeFile(`${dir}soak.json`, `${JSON.stringify(report, null, 2)}\n`);
const md = soakMarkdown(report);
await writeFile(`${dir}soak.md`, md);
console.log(md);
const leaked = report.gatewayFds.after > report.gatewayFds.before + 10;
process.exit(report.errors.length || leaked ? 1 : 0);
