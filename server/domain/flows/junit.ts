// A run of steps as a JUnit XML report, the format every CI system reads: one test suite per flow,
// one test case per step, the divergence as the failing case's failure with its code, message and
// hint, skipped steps as skipped. Artifacts (the look image and the outline of the moment a step
// failed) are named in the failing case's system-out, where CI systems show them.
import type { Schemas } from '../../../openapi/contract.js';

export interface JunitSuite {
  name: string;
  run: Schemas['DoResult'];
  steps: Schemas['Step'][];
  /** Files saved for the failed step, relative to the report. */
  artifacts?: string[];
}

export function junitXml(suites: JunitSuite[]): string {
  const all = suites.map(suiteXml);
  const tests = suites.reduce((n, s) => n + s.steps.length, 0);
  const failures = suites.filter((s) => s.run.divergence).length;
  const time = suites.reduce((t, s) => t + s.run.totalMs, 0) / 1000;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="simfleet" tests="${tests}" failures="${failures}" time="${time.toFixed(3)}">\n${all.join('')}</testsuites>\n`;
}

function suiteXml(s: JunitSuite): string {
  const byIndex = new Map(s.run.steps.map((r) => [r.index, r]));
  const d = s.run.divergence;
  const cases = s.steps.map((step, i) => {
    const r = byIndex.get(i);
    const where = step.source ? `${step.source.file}:${step.source.line} ` : '';
    const name = `${String(i).padStart(2, '0')} ${where}${step.action}${step.target ? ` ${step.target}` : step.to ? ` ${step.to}` : ''}`;
    const time = ((r?.ms ?? 0) / 1000).toFixed(3);
    let body = '';
    if (d && d.index === i) {
      body = `\n      <failure type="${esc(d.code)}" message="${esc(d.message)}">${esc(`${d.message}\nhint: ${d.hint}\nresume: from ${d.resume.from}, planDigest ${d.resume.planDigest}\n\n${d.outline}`)}</failure>`;
      if (s.artifacts?.length) body += `\n      <system-out>${esc(s.artifacts.map((a) => `[[ATTACHMENT|${a}]]`).join('\n'))}</system-out>`;
      body += '\n    ';
    } else if (!r || r.status === 'skipped' || (d && i > d.index)) {
      body = `\n      <skipped message="${esc(!r || (d && i > d.index) ? 'not run: the flow stopped before this step' : r.detail)}"/>\n    `;
    }
    return `    <testcase classname="${esc(s.name)}" name="${esc(name)}" time="${time}">${body}</testcase>\n`;
  });
  const failures = d ? 1 : 0;
  const skipped = s.steps.length - s.run.completed - failures;
  return `  <testsuite name="${esc(s.name)}" tests="${s.steps.length}" failures="${failures}" skipped="${skipped}" time="${(s.run.totalMs / 1000).toFixed(3)}">\n${cases.join('')}  </testsuite>\n`;
}

function esc(s: string): string {
  // XML 1.0 allows no control characters but tab, newline and carriage return.
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
