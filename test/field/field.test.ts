// The field suite whole (acceptance tier): every page of every field app held against Chromium's
// own truth, and every task in two passes with each action's effect checked on the DOM. The floors
// are the issue's: coverage at least 98%, no two controls merged, look and outline agreeing at every
// tap point, no false ok, and at least 95% of tasks done. `npm run field` writes the full report.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PageResult } from './run.js';
import { totals } from './run.js';
import { runFieldSuite } from './suite.js';
import { confusion, describeAct, type TaskOutcome } from './tasks.js';

let pages: PageResult[] = [];
let tasks: TaskOutcome[] = [];

beforeAll(async () => {
  ({ pages, tasks } = await runFieldSuite());
}, 60 * 60_000);

describe('the field suite on real third-party apps', () => {
  it('reads at least 98% of interactive elements right, merges none, and draws every tap point where the image has it', () => {
    const t = totals(pages);
    expect(pages.filter((p) => p.error).map((p) => `${p.app} ${p.page}: ${p.error}`)).toEqual([]);
    expect(t.right / t.truth, JSON.stringify(t)).toBeGreaterThanOrEqual(0.98);
    expect(t.merged).toBe(0);
    expect(t.lookAgree).toBe(t.lookPoints);
  });

  it('never answers ok for an action whose effect the DOM does not show', () => {
    const falseOk = tasks.flatMap((o) =>
      o.steps.filter((s) => s.answer === 'ok' && s.held !== true).map((s) => `${o.app} ${o.name} #${s.index} ${describeAct(s.act)}: ${s.reason}`),
    );
    expect(falseOk).toEqual([]);
    expect(confusion(tasks).actions).toBeGreaterThanOrEqual(300);
  });

  it('does at least 95% of the tasks', () => {
    const first = tasks.filter((o) => o.pass === 1);
    expect(first.length).toBeGreaterThanOrEqual(60);
    const failed = first.filter((o) => !o.success).map((o) => `${o.app} ${o.name}: ${o.why}`);
    expect(failed.length / first.length, failed.join('\n')).toBeLessThanOrEqual(0.05);
  });
});
