// The field report as Markdown: totals, then one row per page.
import { FIT_APPS } from './fit.js';
import { type FieldPageTotals, type PageResult, totals } from './run.js';

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '—');

export function reportMarkdown(day: string, t: FieldPageTotals, pages: PageResult[]): string {
  const rows = pages.map((r) => {
    const c = r.coverage;
    return `| ${r.app}${FIT_APPS.has(r.app) ? ' (fit)' : ''} | ${r.page} | ${r.error ? `error: ${r.error.slice(0, 80)}` : `${c.right}/${c.truth}`} | ${c.absent} | ${c.roleWrong} | ${c.nameWrong} | ${c.stateWrong} | ${c.merged} | ${r.look.agree}/${r.look.points} |`;
  });
  return [
    `# Field run ${day}`,
    '',
    'simfleet on real third-party mobile web apps and UI kits from the npm registry (test/field/apps/manifest.json),',
    'held against a ground truth read from Chromium by the harness itself (test/field/truth.ts). `npm run field` writes this file.',
    '',
    '## Outline coverage',
    '',
    `${t.pages} pages (${t.errors} could not be checked). Of ${t.truth} interactive elements on screen and uncovered, ${t.right} (${pct(t.right, t.truth)}) were right in role, name, state and tap point.`,
    `Absent ${t.absent}, wrong role ${t.roleWrong}, wrong name ${t.nameWrong}, wrong state ${t.stateWrong}, merged into another line ${t.merged}.`,
    `look and outline: at ${t.lookAgree} of ${t.lookPoints} tap points (${pct(t.lookAgree, t.lookPoints)}) simfleet's image shows what the screen shows.`,
    '',
    ...splitRows(pages),
    '',
    '| app | page | right | absent | role | name | state | merged | look |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

// Fit and held-out apart: the fit apps' misses were read while simfleet changed (fit.ts).
function splitRows(pages: PageResult[]): string[] {
  const line = (what: string, rs: PageResult[]) => {
    const t = totals(rs);
    return `| ${what} | ${new Set(rs.map((r) => r.app)).size} | ${t.pages} | ${t.right}/${t.truth} (${pct(t.right, t.truth)}) | ${t.lookAgree}/${t.lookPoints} |`;
  };
  return [
    '| apps | count | pages | right | look agrees |',
    '|---|---|---|---|---|',
    line(
      'fit (misses read while changing simfleet)',
      pages.filter((r) => FIT_APPS.has(r.app)),
    ),
    line(
      'held out',
      pages.filter((r) => !FIT_APPS.has(r.app)),
    ),
  ];
}
