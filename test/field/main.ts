// `npm run field`: the page pass over every field app (run.ts), then a report in bench/results.
// `--only id,id` limits it to some apps; `--verbose` prints every check that failed; `--outline`
// prints each page's outline as the agent reads it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkPage, fieldRig, type PageResult, totals } from './run.js';
import { FIT_APPS } from './fit.js';
import { reportMarkdown } from './report.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const only = arg('--only')?.split(',');
const verbose = process.argv.includes('--verbose');
const printOutline = process.argv.includes('--outline');
const rig = await fieldRig(only);
const results: PageResult[] = [];
try {
  for (const p of rig.server.pages) {
    const r = await checkPage(rig, p);
    results.push(r);
    const c = r.coverage;
    console.error(
      `${r.app} ${r.page}: ${r.error ? `ERROR ${r.error}` : `${c.right}/${c.truth} right (absent ${c.absent}, role ${c.roleWrong}, name ${c.nameWrong}, state ${c.stateWrong}, merged ${c.merged}); look ${r.look.agree}/${r.look.points}`}`,
    );
    if (printOutline) console.error(r.outline);
    if (verbose) {
      for (const ch of c.checks.filter((x) => x.problems.length))
        console.error(
          `   ${ch.problems.join(',')}: truth ${ch.truth.role} ${JSON.stringify(ch.truth.name)} ${JSON.stringify(ch.truth.states)} @${Math.round(ch.truth.screen.x)},${Math.round(ch.truth.screen.y)}; line ${ch.line ? `@${ch.line.ref} ${ch.line.role} ${JSON.stringify(ch.line.label)}` : 'none'}`,
        );
      for (const d of r.look.disagreements) console.error(`   look: ${d}`);
    }
  }
} finally {
  await rig.close();
}
const t = totals(results);
console.error(JSON.stringify(t));
const held = totals(results.filter((r) => !FIT_APPS.has(r.app)));
console.error(`held out: ${held.right}/${held.truth} right; look ${held.lookAgree}/${held.lookPoints}`);
const day = new Date().toISOString().slice(0, 10);
const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
mkdirSync(dir, { recursive: true });
if (!only) {
  writeFileSync(`${dir}${day}-field.json`, `${JSON.stringify({ totals: t, heldOut: held, fitApps: [...FIT_APPS], pages: results }, null, 1)}\n`);
  writeFileSync(`${dir}${day}-field.md`, reportMarkdown(day, t, results));
}
