// npm run bench [-- SUITE ...]: runs the suites and writes bench/results/latest.{json,md}.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { machine, unmeasured, type Figure, type Suite } from './harness.js';
import { gatewaySuite } from './suites/gateway.js';
import { peersSuite } from './suites/peers.js';
import { actingSuite } from './suites/acting.js';
import { perceptionSuite } from './suites/perception.js';
import { placementSuite } from './suites/placement.js';
import { memorySuite } from './suites/memory.js';
import { understandingSuite } from './suites/understanding.js';
import { webSuite } from './suites/web.js';
import { streamsSuite } from './suites/streams.js';

const SUITES: Suite[] = [placementSuite, webSuite, perceptionSuite, understandingSuite, memorySuite, actingSuite, streamsSuite, gatewaySuite, peersSuite];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) {
    console.error(`unknown suite(s): ${unknown.join(', ')}; have: ${SUITES.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const chosen = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES;
  const figures: Figure[] = [];
  for (const suite of chosen) {
    console.error(`== ${suite.name}: ${suite.describe}`);
    const started = performance.now();
    let got: Figure[];
    try {
      got = await suite.run();
    } catch (err) {
      // One suite that cannot run here (no Chromium, no Postgres) must not cost the others their figures.
      console.error(err);
      got = [unmeasured(suite.name, `the ${suite.name} suite`, '', `failed: ${(err as Error).message.split('\n')[0]}`)];
    }
    for (const f of got)
      console.error(
        f.unmeasured ? `   ${f.figure}: not measured: ${f.unmeasured}` : `   ${f.figure}: median ${f.median} ${f.unit}, p95 ${f.p95} (${f.runs} runs)`,
      );
    console.error(`   (${Math.round((performance.now() - started) / 1000)} s)`);
    figures.push(...got);
  }
  const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
  await mkdir(dir, { recursive: true });
  // A run of some suites replaces their figures and keeps the others' from the last run.
  const kept = wanted.length ? await previousFigures(`${dir}latest.json`, new Set(chosen.map((s) => s.name))) : [];
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    figures: [...kept, ...figures].sort((a, b) => SUITES.findIndex((s) => s.name === a.suite) - SUITES.findIndex((s) => s.name === b.suite)),
  };
  await writeFile(`${dir}latest.json`, `${JSON.stringify(result, null, 2)}\n`);
  // JSON has no NaN: an unmeasured figure's numbers are written as null, with the reason beside them.
  const rows = result.figures.map((f) =>
    f.unmeasured
      ? `| ${f.suite} | ${f.figure} | ${f.unit} | — | — | 0 | ${f.goal ?? ''} | not measured: ${f.unmeasured} |`
      : `| ${f.suite} | ${f.figure} | ${f.unit} | ${f.median} | ${f.p95} | ${f.runs} | ${f.goal ?? ''} | ${f.note ?? ''} |`,
  );
  const m = result.machine;
  await writeFile(
    `${dir}latest.md`,
    [
      `# simfleet benchmarks`,
      '',
      `${result.date} · ${m.cpu} × ${m.cores} · ${m.memoryGiB} GiB · Node ${m.node} · ${m.platform}`,
      '',
      '| suite | figure | unit | median | p95 | runs | goal | note |',
      '|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
  console.error(`wrote ${dir}latest.json and latest.md`);
}

async function previousFigures(file: string, replaced: Set<string>): Promise<Figure[]> {
  try {
    const last = JSON.parse(await readFile(file, 'utf8')) as { figures: Figure[] };
    return last.figures.filter((f) => !replaced.has(f.suite));
  } catch {
    return [];
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
