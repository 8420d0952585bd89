// The field suite's tasks: scripted things a user does in the field apps (add and complete to-dos,
// fill forms, switch tabs, open and dismiss dialogs, scroll to a far row), each action sent as an
// agent sends it (REST, a label or a role as target), and each action's effect checked by the
// harness itself on the page's DOM. The verdict simfleet gives is held against that check: `ok`
// where the check fails is a false ok, the worst answer simfleet can give.
import type { Page } from 'playwright-core';
import type { components } from '../../openapi/generated/types.js';
import type { FieldRig } from './run.js';
import { coverage, type PageCoverage } from './coverage.js';
import { openPage, readOutline } from './run.js';
import { readTruth } from './truth.js';

type ActionRequest = components['schemas']['ActionRequest'];

export interface FieldStep {
  /** The action as an agent sends it. */
  act: ActionRequest;
  /** A JS expression run in the page before the action; its value is `before` in `done`. */
  probe?: string;
  /** A JS expression (it may use `before`): true when the action did what the user meant by it. */
  done: string;
  /**
   * The target is picked from the outline read just before the action, as an agent picks a ref:
   * the element of `role` on the same row as the line labelled `near` (nearest it), or the first of
   * that role in reading order (with `unnamed`, only elements the outline shows without a name). The
   * action is sent with `target: '@N'`.
   */
  pick?: { role: string; near?: string; unnamed?: boolean };
  /** The step is meant to achieve nothing (a disabled control, an inert label): it is left out of task success. */
  probeOnly?: boolean;
}

export interface FieldTask {
  app: string;
  /** The manifest page (its path); the app's first page by default. */
  page?: string;
  name: string;
  steps: FieldStep[];
}

/** What simfleet answered: a verdict, or the typed refusal's code (NO_MATCH, AMBIGUOUS, ...). */
export type Answer = components['schemas']['Verdict'] | `refused:${string}`;

export interface StepOutcome {
  index: number;
  act: ActionRequest;
  answer: Answer;
  /** The harness's own check on the DOM; null when it could not run (the page went away). */
  held: boolean | null;
  probeOnly: boolean;
  reason: string;
  ms: number;
  /** The outline of the screen the step ended on, held against the truth (pass 1 only). */
  coverage?: PageCoverage;
}

export interface TaskOutcome {
  app: string;
  name: string;
  pass: 1 | 2;
  steps: StepOutcome[];
  /** Every meant step was carried out (no refusal) and its check held. */
  success: boolean;
  /** Why not, when it did not succeed. */
  why?: string;
}

// Cleared, and kept clear while the page unloads: some apps save their state on the way out (Dojo's
// TodoMVC does), which would bring the last task's rows back.
const STORAGE_RESET = 'try { localStorage.clear(); sessionStorage.clear(); Storage.prototype.setItem = function () {}; } catch {}';

/** Runs one task from a fresh load of its page (its storage cleared), step by step. */
export async function runTask(rig: FieldRig, task: FieldTask, pass: 1 | 2): Promise<TaskOutcome> {
  const url = pageUrl(rig, task);
  await openPage(rig, url);
  await page(rig).evaluate(STORAGE_RESET);
  await openPage(rig, url);
  const steps: StepOutcome[] = [];
  for (const [index, step] of task.steps.entries()) {
    const t0 = Date.now();
    const before = step.probe ? await evaluate(rig, step.probe) : null;
    const act = step.pick ? { ...step.act, target: await pickRef(rig, step.pick) } : step.act;
    const res = await rig.agent.call('runAction', { params: { sessionId: rig.session }, body: act });
    const body = res.body as { verdict?: Answer; reason?: string; error?: { code?: string; message?: string; hint?: string } };
    const answer: Answer = res.status === 200 ? body.verdict! : `refused:${body.error?.code ?? res.status}`;
    const held = await evaluate(rig, `((before) => (${step.done}))(${JSON.stringify(before)})`);
    const covered = pass === 1 ? await coverageNow(rig) : undefined;
    steps.push({
      index,
      ...(covered ? { coverage: covered } : {}),
      act,
      answer,
      held: held === null ? null : Boolean(held),
      probeOnly: step.probeOnly === true,
      reason: (res.status === 200 ? body.reason : [body.error?.message, body.error?.hint].filter(Boolean).join(' — ')) ?? '',
      ms: Date.now() - t0,
    });
  }
  const failed = steps.find((s) => !s.probeOnly && (s.answer.startsWith('refused:') || s.held !== true));
  return {
    app: task.app,
    name: task.name,
    pass,
    steps,
    success: !failed,
    ...(failed
      ? {
          why: `step ${failed.index} ${describeAct(failed.act)}: ${failed.answer}, check ${failed.held === null ? 'could not run' : failed.held ? 'held' : 'failed'}; ${failed.reason.slice(0, 160)}`,
        }
      : {}),
  };
}

export function describeAct(a: ActionRequest): string {
  const parts: string[] = [a.action];
  if (a.target) parts.push(JSON.stringify(a.target));
  if (a.role) parts.push(`role ${a.role}`);
  if (a.index !== undefined) parts.push(`#${a.index}`);
  if (a.text !== undefined) parts.push(`text ${JSON.stringify(a.text)}`);
  if (a.key) parts.push(`key ${a.key}`);
  if (a.direction) parts.push(a.direction);
  if (a.to) parts.push(`to ${JSON.stringify(a.to)}`);
  return parts.join(' ');
}

function pageUrl(rig: FieldRig, task: FieldTask): string {
  const p = rig.server.pages.find((x) => x.app.id === task.app && (task.page === undefined || x.page === task.page));
  if (!p) throw new Error(`task ${JSON.stringify(task.name)}: no page ${task.page ?? '(first)'} of field app ${task.app} is served`);
  return p.url;
}

/** The outline of the screen as it is now, held against the truth; undefined when the page is between documents. */
async function coverageNow(rig: FieldRig): Promise<PageCoverage | undefined> {
  try {
    const outline = await readOutline(rig);
    const truth = await readTruth(page(rig));
    try {
      return await coverage(outline.elements, truth);
    } finally {
      await truth.close();
    }
  } catch {
    return undefined;
  }
}

/** The ref an agent reading the outline would take for `pick`; a target no element has when none fits. */
async function pickRef(rig: FieldRig, pick: NonNullable<FieldStep['pick']>): Promise<string> {
  const els = (await readOutline(rig)).elements.filter((e) => e.ref !== null && e.tap);
  const ofRole = els.filter((e) => e.role === pick.role && (!pick.unnamed || !e.label));
  if (!pick.near) return ofRole[0] ? `@${ofRole[0].ref}` : `(no ${pick.role} on screen)`;
  // A control of that role named by the words itself (a checkbox the row's label names) is the one.
  const named = ofRole.find((e) => e.label === pick.near);
  if (named) return `@${named.ref}`;
  const anchor = els.find((e) => e.label === pick.near && e.role !== pick.role);
  if (!anchor) return `(no line ${JSON.stringify(pick.near)} on screen)`;
  const rowOf = ofRole
    .filter((e) => Math.abs(e.tap!.y - anchor.tap!.y) <= 12)
    .sort((a, b) => Math.abs(a.tap!.x - anchor.tap!.x) - Math.abs(b.tap!.x - anchor.tap!.x));
  return rowOf[0] ? `@${rowOf[0].ref}` : `(no ${pick.role} beside ${JSON.stringify(pick.near)})`;
}

const page = (rig: FieldRig): Page => rig.provider.device('web-1')!.currentPageForTests;

/** A check run in the page; null when it cannot run (the page navigated away mid-check, or threw). */
async function evaluate(rig: FieldRig, expr: string): Promise<unknown> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return await page(rig).evaluate(expr);
    } catch (err) {
      if (attempt === 1 || !/context was destroyed|navigation/i.test((err as Error).message)) return null;
      await page(rig)
        .waitForLoadState('load', { timeout: 3000 })
        .catch(() => undefined);
    }
  }
  return null;
}

export interface Confusion {
  /** answer → [check held, check failed, check could not run] */
  table: Record<string, [number, number, number]>;
  falseOk: number;
  actions: number;
}

export function confusion(outcomes: TaskOutcome[]): Confusion {
  const table: Confusion['table'] = {};
  let falseOk = 0;
  let actions = 0;
  for (const t of outcomes)
    for (const s of t.steps) {
      actions++;
      const row = (table[s.answer] ??= [0, 0, 0]);
      row[s.held === null ? 2 : s.held ? 0 : 1]++;
      if (s.answer === 'ok' && s.held !== true) falseOk++;
    }
  return { table, falseOk, actions };
}
