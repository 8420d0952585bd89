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
lines.push(tallyRow('all sets', tally(all)));
console.log(lines.join('\n'));
if (unreadable.length) console.log(`\nunreadable: ${unreadable.map((u) => `${u.set}/${u.file}: ${u.error}`).join('; ')}`);
console.log('\nworst pairs:');
for (const p of worst(all, 10)) {
  console.log(
    `- ${p.truth} judged ${p.comparison.same ? 'same' : 'different'} at ${p.comparison.similarity.toFixed(3)}${p.comparison.titleVeto ? ' (title veto)' : ''}: ${p.groups}\n    ${p.a}\n    ${p.b}`,
  );
}
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify({ tallies: lines, unreadable, wrong: worst(all, 1e9) }, null, 1));
