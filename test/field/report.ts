// The field report as Markdown: outline coverage (fit and held-out apart, then per page), then the
// tasks: success, the verdict × truth table over every action, per app, and every false ok.
import { FIT_APPS } from './fit.js';
import { type FieldPageTotals, type PageResult, totals } from './run.js';
import { type Answer, confusion, describeAct, type TaskOutcome } from './tasks.js';

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '—');

export function reportMarkdown(day: string, pages: PageResult[], tasks: TaskOutcome[]): string {
  return [
    `# Field run ${day}`,
    '',
    'simfleet on real third-party mobile web apps and UI kits from the npm registry (test/field/apps/manifest.json),',
    'held against a ground truth read from Chromium by the harness itself (test/field/truth.ts), and scripted tasks',
    'whose every action is checked on the DOM by the harness (test/field/tasks/). `npm run field` writes this file.',
    'Fit apps (test/field/fit.ts) are those whose misses were read while simfleet changed; the rest are held out.',
    '',
    ...coverageSection(pages),
    ...taskSection(tasks),
  ].join('\n');
}

function coverageSection(pages: PageResult[]): string[] {
  const t = totals(pages);
  const line = (what: string, rs: PageResult[]) => {
    const s: FieldPageTotals = totals(rs);
    return `| ${what} | ${new Set(rs.map((r) => r.app)).size} | ${s.pages} | ${s.right}/${s.truth} (${pct(s.right, s.truth)}) | ${s.merged} | ${s.lookAgree}/${s.lookPoints} |`;
  };
  const rows = pages.map((r) => {
    const c = r.coverage;
    return `| ${r.app}${FIT_APPS.has(r.app) ? ' (fit)' : ''} | ${r.page} | ${r.error ? `error: ${r.error.slice(0, 80)}` : `${c.right}/${c.truth}`} | ${c.absent} | ${c.roleWrong} | ${c.nameWrong} | ${c.stateWrong} | ${c.merged} | ${r.look.agree}/${r.look.points} | ${r.outlineChars} / ${r.ariaChars} / ${r.mcpChars} |`;
  });
  return [
    '## Outline coverage',
    '',
    `${t.pages} pages (${t.errors} could not be checked). Of ${t.truth} interactive elements on screen and uncovered, ${t.right} (${pct(t.right, t.truth)}) were right in role, name, state and tap point.`,
    `Absent ${t.absent}, wrong role ${t.roleWrong}, wrong name ${t.nameWrong}, wrong state ${t.stateWrong}, merged into another line ${t.merged}.`,
    `look and outline: at ${t.lookAgree} of ${t.lookPoints} tap points (${pct(t.lookAgree, t.lookPoints)}) simfleet's image shows what the screen shows.`,
    charsLine(pages),
    '',
    '| apps | count | pages | right | merged | look agrees |',
    '|---|---|---|---|---|---|',
    line(
      'fit',
      pages.filter((r) => FIT_APPS.has(r.app)),
    ),
    line(
      'held out',
      pages.filter((r) => !FIT_APPS.has(r.app)),
    ),
    '',
    '| app | page | right | absent | role | name | state | merged | look | chars: outline / Playwright / Playwright MCP |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

/** The median, over pages, of the outline's characters over a peer's snapshot of the same page. */
function medianRatio(pages: PageResult[], peer: (p: PageResult) => number): { median: number; n: number } | null {
  const ratios = pages.filter((p) => peer(p) > 0 && p.outlineChars > 0).map((p) => p.outlineChars / peer(p));
  if (!ratios.length) return null;
  const s = [...ratios].sort((a, b) => a - b);
  return { median: s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2, n: s.length };
}

function charsLine(pages: PageResult[]): string {
  const mcp = medianRatio(pages, (p) => p.mcpChars);
  const aria = medianRatio(pages, (p) => p.ariaChars);
  if (!mcp || !aria) return '';
  return `Characters an agent reads per screen: the outline's median is ${mcp.median.toFixed(2)} × the snapshot Playwright MCP gives of the same page (its page snapshot in "ai" mode, refs on every line; over ${mcp.n} pages), and ${aria.median.toFixed(2)} × Playwright's plain accessibility snapshot of the page's body.`;
}

/** Outline coverage on the screens the first pass's steps ended on. */
function visitedLine(first: TaskOutcome[]): string {
  const covs = first.flatMap((o) => o.steps.flatMap((s) => (s.coverage ? [s.coverage] : [])));
  const sum = (f: (c: (typeof covs)[number]) => number) => covs.reduce((n, c) => n + f(c), 0);
  const truth = sum((c) => c.truth);
  return `Outline coverage on the ${covs.length} screens the first pass's steps ended on: ${sum((c) => c.right)}/${truth} (${pct(
    sum((c) => c.right),
    truth,
  )}) right; absent ${sum((c) => c.absent)}, role ${sum((c) => c.roleWrong)}, name ${sum((c) => c.nameWrong)}, state ${sum((c) => c.stateWrong)}, merged ${sum((c) => c.merged)}.`;
}

const ANSWERS: Answer[] = ['ok', 'unverified', 'no-visible-change', 'not-delivered', 'unexpected-screen'];

function taskSection(outcomes: TaskOutcome[]): string[] {
  if (!outcomes.length) return [];
  const first = outcomes.filter((o) => o.pass === 1);
  const meant = first.filter((o) => o.steps.length);
  const c = confusion(outcomes);
  const answers = [...ANSWERS.filter((a) => c.table[a]), ...Object.keys(c.table).filter((a) => !ANSWERS.includes(a as Answer))];
  const cell = (a: string) => c.table[a] ?? [0, 0, 0];
  const apps = [...new Set(outcomes.map((o) => o.app))];
  const perApp = apps.map((app) => {
    const os = outcomes.filter((o) => o.app === app);
    const k = confusion(os);
    const got = (a: string) => k.table[a] ?? [0, 0, 0];
    const ok1 = os.filter((o) => o.pass === 1 && o.success).length;
    return `| ${app}${FIT_APPS.has(app) ? ' (fit)' : ''} | ${ok1}/${os.filter((o) => o.pass === 1).length} | ${k.actions} | ${got('ok')[0]} | ${got('ok')[1] + got('ok')[2]} | ${got('unverified')[0]}/${got('unverified')[1]} | ${got('no-visible-change')[0]}/${got('no-visible-change')[1]} | ${answers.filter((a) => a.startsWith('refused:')).reduce((s, a) => s + got(a)[0] + got(a)[1] + got(a)[2], 0)} |`;
  });
  const falseOks = outcomes.flatMap((o) =>
    o.steps
      .filter((s) => s.answer === 'ok' && s.held !== true)
      .map((s) => `- ${o.app}, ${JSON.stringify(o.name)} (pass ${o.pass}), step ${s.index} ${describeAct(s.act)}: ${s.reason}`),
  );
  const failed = first.filter((o) => !o.success).map((o) => `- ${o.app}, ${JSON.stringify(o.name)}: ${o.why}`);
  return [
    '## Tasks',
    '',
    `${first.length} tasks, each run twice (the second pass meets what the first taught memory); ${c.actions} actions in all.`,
    `Task success (first pass: every meant step carried out and its check held): ${first.filter((o) => o.success).length}/${first.length} (${pct(first.filter((o) => o.success).length, meant.length)}).`,
    `False ok (verdict ok where the harness's check failed or could not run): ${c.falseOk}.`,
    visitedLine(first),
    '',
    '| answer | check held | check failed | could not check |',
    '|---|---|---|---|',
    ...answers.map((a) => `| ${a} | ${cell(a)[0]} | ${cell(a)[1]} | ${cell(a)[2]} |`),
    '',
    '| app | tasks done (pass 1) | actions | ok, held | ok, not held | unverified held/failed | no-visible-change held/failed | refused |',
    '|---|---|---|---|---|---|---|---|',
    ...perApp,
    '',
    '### False ok',
    '',
    ...(falseOks.length ? falseOks : ['None.']),
    '',
    '### Tasks that failed (first pass), and why',
    '',
    ...(failed.length ? failed : ['None.']),
    '',
  ];
}
