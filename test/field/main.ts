// `npm run field`: the page pass over every field app (run.ts), then every task twice (tasks.ts; the
// second pass meets what the first taught simfleet's memory), then a report in bench/results.
// `--only id,id` limits it to some apps (and writes no report); `--pages` or `--tasks` runs one part;
// `--verbose` prints every check that failed; `--outline` prints each page's outline.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIT_APPS } from './fit.js';
import { reportMarkdown } from './report.js';
import { type PageResult, totals } from './run.js';
import { runFieldSuite } from './suite.js';
import { confusion, describeAct, type TaskOutcome } from './tasks.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = arg('--only')?.split(',');
const verbose = process.argv.includes('--verbose');
const printOutline = process.argv.includes('--outline');
const doPages = !process.argv.includes('--tasks');
const doTasks = !process.argv.includes('--pages');
const { pages: results, tasks: outcomes } = await runFieldSuite({
  ...(only ? { only } : {}),
  pages: doPages,
  tasks: doTasks,
  onPage: printPage,
  onTask: (o) => {
    console.error(`task ${o.pass} ${o.app} ${JSON.stringify(o.name)}: ${o.success ? 'done' : `FAILED ${o.why}`}`);
    for (const s of o.steps)
      for (const ch of s.coverage?.checks.filter((x) => x.problems.length) ?? [])
        console.error(
          `   after step ${s.index}: ${ch.problems.join(',')}: truth ${ch.truth.role} ${JSON.stringify(ch.truth.name)} ${JSON.stringify(ch.truth.states)}; line ${ch.line ? `@${ch.line.ref} ${ch.line.role} ${JSON.stringify(ch.line.label)}` : 'none'}`,
        );
    for (const s of o.steps.filter((x) => verbose || (x.answer === 'ok' && x.held !== true)))
      console.error(
        `   ${s.index} ${describeAct(s.act)} -> ${s.answer}, check ${s.held}${s.answer === 'ok' && s.held !== true ? ' FALSE OK' : ''}: ${s.reason.slice(0, 120)}`,
      );
  },
});
const t = totals(results);
const held = totals(results.filter((r) => !FIT_APPS.has(r.app)));
const c = confusion(outcomes);
const visited = outcomes.flatMap((o) => o.steps.flatMap((s) => (s.coverage ? [s.coverage] : [])));
console.error(
  JSON.stringify({
    pages: t,
    heldOut: held,
    tasks: { actions: c.actions, falseOk: c.falseOk, table: c.table },
    visited: { screens: visited.length, truth: visited.reduce((n, v) => n + v.truth, 0), right: visited.reduce((n, v) => n + v.right, 0) },
  }),
);
if (!only && doPages && doTasks) {
  const day = new Date().toISOString().slice(0, 10);
  const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}${day}-field.json`,
    `${JSON.stringify({ totals: t, heldOut: held, fitApps: [...FIT_APPS], confusion: c, pages: results.map(slimPage), tasks: outcomes.map(slimTask) }, null, 1)}\n`,
  );
  writeFileSync(`${dir}${day}-field.md`, reportMarkdown(day, results, outcomes));
}

function printPage(r: PageResult): void {
  const cov = r.coverage;
  console.error(
    `${r.app} ${r.page}: ${r.error ? `ERROR ${r.error}` : `${cov.right}/${cov.truth} right (absent ${cov.absent}, role ${cov.roleWrong}, name ${cov.nameWrong}, state ${cov.stateWrong}, merged ${cov.merged}); look ${r.look.agree}/${r.look.points}; chars ${r.outlineChars}/${r.ariaChars}/${r.mcpChars}`}`,
  );
  if (printOutline) console.error(r.outline);
  if (verbose) {
    for (const ch of cov.checks.filter((x) => x.problems.length))
      console.error(
        `   ${ch.problems.join(',')}: truth ${ch.truth.role} ${JSON.stringify(ch.truth.name)} ${JSON.stringify(ch.truth.states)} @${Math.round(ch.truth.screen.x)},${Math.round(ch.truth.screen.y)}; line ${ch.line ? `@${ch.line.ref} ${ch.line.role} ${JSON.stringify(ch.line.label)}` : 'none'}`,
      );
    for (const d of r.look.disagreements) console.error(`   look: ${d}`);
  }
}

/** A page's result as kept in the JSON: the misses, not every check nor the outline's text. */
function slimPage(r: PageResult) {
  const { outline: _outline, coverage, ...rest } = r;
  const { checks, ...counts } = coverage;
  return {
    ...rest,
    coverage: {
      ...counts,
      misses: checks.filter((x) => x.problems.length).map((x) => ({ problems: x.problems, truth: { role: x.truth.role, name: x.truth.name } })),
    },
  };
}

/** A task's outcome as kept in the JSON: each step's coverage as counts. */
function slimTask(o: TaskOutcome) {
  return {
    ...o,
    steps: o.steps.map(({ coverage, ...s }) => ({
      ...s,
      ...(coverage ? { coverage: { truth: coverage.truth, right: coverage.right, misses: coverage.truth - coverage.right } } : {}),
    })),
  };
}
