// A slice of the field suite in `npm test` (the whole of it is test/field/field.test.ts, acceptance):
// three real third-party apps from npm served on loopback — a TodoMVC, a form kit with controls
// drawn by their labels, a form kit with the Ionic 1 markup — each page held against Chromium's own
// truth, and the three apps' tasks run twice with every action's effect checked on the DOM: TodoMVC's
// all done, and no ok anywhere the DOM does not bear out.
import { beforeAll, describe, expect, it } from 'vitest';
import { type PageResult, totals } from '../field/run.js';
import { runFieldSuite } from '../field/suite.js';
import { describeAct, type TaskOutcome } from '../field/tasks.js';

let pages: PageResult[] = [];
let tasks: TaskOutcome[] = [];

beforeAll(async () => {
  ({ pages, tasks } = await runFieldSuite({ only: ['todomvc-react', 'jqweui-form', 'ionic-forms'] }));
}, 10 * 60_000);

describe('a slice of the field suite', () => {
  it('reads every interactive element of its pages right, and the image agrees at every tap point', () => {
    const t = totals(pages);
    const wrong = pages.flatMap((p) =>
      p.coverage.checks.filter((c) => c.problems.length).map((c) => `${p.app}: ${c.problems.join(',')} ${c.truth.role} ${JSON.stringify(c.truth.name)}`),
    );
    expect(wrong).toEqual([]);
    expect(t.truth).toBeGreaterThan(30);
    expect(t.lookAgree).toBe(t.lookPoints);
  });

  it("does TodoMVC's tasks, and no task of the three apps gets an ok the DOM does not bear out", () => {
    const todo = tasks.filter((o) => o.app === 'todomvc-react');
    expect(todo.filter((o) => !o.success).map((o) => `${o.name} (pass ${o.pass}): ${o.why}`)).toEqual([]);
    // Every answer of every task of the slice, done or not: ok only where the DOM bears it out.
    const steps = tasks.flatMap((o) => o.steps.map((s) => ({ ...s, app: o.app })));
    expect(steps.filter((s) => s.answer === 'ok' && s.held !== true).map((s) => `${s.app} ${describeAct(s.act)}: ${s.reason}`)).toEqual([]);
    // The second pass meets remembered transitions: most of its answers are ok, each borne out.
    expect(
      todo
        .filter((o) => o.pass === 2)
        .flatMap((o) => o.steps)
        .filter((s) => s.answer === 'ok').length,
    ).toBeGreaterThan(15);
    // Enter in the empty field (a slip) is never ok.
    const slips = todo.flatMap((o) => o.steps).filter((s) => s.probeOnly);
    expect(slips.length).toBe(2);
    for (const s of slips) expect(s.answer).not.toBe('ok');
  });
});
