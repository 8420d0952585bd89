// `npm run eval:identity`: the confusion table of screen identity on every labelled set, each
// split into the fit and held-out halves of its apps, and the ten worst pairs with their evidence.
// `--json FILE` also writes the numbers and every wrong pair.
import { writeFileSync } from 'node:fs';
import { judgePairs, readAll, tally, tallyRow, worst, type JudgedPair, type Unreadable } from './evaluate.js';
import { loadSets } from './sets.js';

const jsonAt = process.argv.indexOf('--json');
const all: JudgedPair[] = [];
const unreadable: Unreadable[] = [];
const lines: string[] = ['| set | same-screen recall | different-screen separation | ambiguous |', '|---|---|---|---|'];
for (const set of loadSets()) {
  const { read, unreadable: bad } = readAll(set);
  unreadable.push(...bad);
  const pairs = judgePairs(set, read);
  all.push(...pairs);
  lines.push(tallyRow(`${set.name} (${read.length} files)`, tally(pairs)));
  lines.push(tallyRow(`… fit half`, tally(pairs.filter((p) => p.half === 'fit'))));
  lines.push(tallyRow(`… held-out half`, tally(pairs.filter((p) => p.half === 'held-out'))));
}
// The repository's copies of the shared dumps count once: when the shared sets are here, the copies step aside.
const shared = all.some((p) => p.set.startsWith('shared/'));
const counted = all.filter((p) => !(shared && p.set === 'fixtures/android-ios'));
lines.push(tallyRow('all sets, each file once', tally(counted)));
lines.push(tallyRow('… scroll groups alone', tally(counted.filter((p) => p.scroll))));
console.log(lines.join('\n'));
if (unreadable.length) console.log(`\nunreadable: ${unreadable.map((u) => `${u.set}/${u.file}: ${u.error}`).join('; ')}`);
const evidence = (p: JudgedPair) => {
  const { families, vetoes, titleSlot } = p.comparison.evidence;
  const fam = Object.entries(families)
    .map(([k, f]) => `${k} ${f.shared}/${f.a}|${f.b}=${f.score.toFixed(2)}`)
    .join(' ');
  return `${fam}${vetoes.length ? ` veto:${vetoes.join(',')}` : ''}${titleSlot ? ' title-slot' : ''}`;
};
for (const truth of ['same', 'different'] as const) {
  console.log(`\nworst ${truth}-screen pairs:`);
  for (const p of worst(
    counted.filter((x) => x.truth === truth),
    10,
  )) {
    console.log(
      `- judged ${p.comparison.same ? 'same' : 'different'} at ${p.comparison.similarity.toFixed(3)}: ${p.groups}\n    ${p.a}\n    ${p.b}\n    ${evidence(p)}`,
    );
  }
}
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify({ tallies: lines, unreadable, wrong: worst(all, 1e9) }, null, 1));

if (process.argv.includes('--sweep')) {
  // The threshold's fit: on the fit half only, the lowest threshold that keeps different screens
  // apart at 99.5 %; the held-out half is what it is reported on.
  const rows = ['| threshold | fit recall | fit separation | held-out recall | held-out separation |', '|---|---|---|---|---|'];
  for (let th = 0.3; th <= 0.9001; th += 0.025) {
    const at = (half: string) => {
      const ps = counted.filter((p) => p.half === half && p.truth !== 'ambiguous');
      const judged = (p: JudgedPair) => p.comparison.evidence.vetoes.length === 0 && p.comparison.similarity >= th;
      const same = ps.filter((p) => p.truth === 'same');
      const diff = ps.filter((p) => p.truth === 'different');
      return `${((100 * same.filter(judged).length) / same.length).toFixed(1)}% | ${((100 * diff.filter((p) => !judged(p)).length) / diff.length).toFixed(1)}%`;
    };
    rows.push(`| ${th.toFixed(3)} | ${at('fit')} | ${at('held-out')} |`);
  }
  console.log(`\n${rows.join('\n')}`);
}
