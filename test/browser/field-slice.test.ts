// A slice of the field suite in `npm test` (the whole of it is test/field/field.test.ts, acceptance):
// three real third-party apps from npm served on loopback — a TodoMVC, a form kit with controls
// drawn by their labels, a form kit with the Ionic 1 markup — each page held against Chromium's own
// truth, and TodoMVC's tasks run twice with every action's effect checked on the DOM.
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

  it("does TodoMVC's tasks, with no ok the DOM does not bear out and an honest answer for the slip", () => {
    expect(tasks.filter((o) => !o.success).map((o) => `${o.name} (pass ${o.pass}): ${o.why}`)).toEqual([]);
    const steps = tasks.flatMap((o) => o.steps);
    expect(steps.filter((s) => s.answer === 'ok' && s.held !== true).map((s) => `${describeAct(s.act)}: ${s.reason}`)).toEqual([]);
    // The second pass meets remembered transitions: most of its answers are ok, each borne out.
    expect(
      tasks
        .filter((o) => o.pass === 2)
        .flatMap((o) => o.steps)
        .filter((s) => s.answer === 'ok').length,
    ).toBeGreaterThan(15);
    // Enter in the empty field (a slip) is never ok.
    const slips = steps.filter((s) => s.probeOnly);
    expect(slips.length).toBe(2);
    for (const s of slips) expect(s.answer).not.toBe('ok');
  });
});
