// Steps run in one call, each settled and verified before the next: the fast tier that turns many
// model round trips into one. A failed step is triaged by fixed rules (wait, retry, stop); a stop
// answers a divergence report with the fresh screen and what a resume needs. A replayed step checks
// the element it finds against the recorded identity before it touches anything.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError } from '../devices/backend.js';
import { outlineText } from '../understanding/outline.js';
import { identity, type Read } from '../understanding/service.js';
import type { Actor } from './act.js';
import { pointScaled } from '../perception/image.js';
import { checkBinding } from './binding.js';
import { checkDeadline, DeadlinePassed } from './deadline.js';
import { presence } from './checks.js';
import { Blocks, type StepCondition } from './blocks.js';
import { describeSelector, type Selector } from '../understanding/select.js';
import { planDigest } from '../../openapi/plan-digest.js';
import { fill } from './fill.js';
import { touchedFor, triage, type Code, type Triage } from './triage.js';

type Schemas = components['schemas'];
type Step = Schemas['Step'];
type StepResult = Schemas['StepResult'];

const WAIT_DEFAULT_MS = 5000;
/** A screen that changed this recently is still busy (a list loading, an animation's tail). */
const BUSY_MS = 1000;

interface Failed {
  code: Code;
  message: string;
  hint: string;
  touched: boolean;
  binding?: Schemas['Divergence']['binding'];
  expected?: string | null;
  result?: Schemas['ActionResult'];
}

interface Attempt {
  ok: boolean;
  verdict: Schemas['Verdict'] | null;
  detail: string;
  result?: Schemas['ActionResult'];
  /** The screen it came good on, when that is not its result's (triage looked again, later). */
  screen?: Schemas['ScreenIdentity'];
  fill?: StepResult['fill'];
  image?: string;
  failed?: Failed;
}

interface Ctx {
  localId: string;
  epoch: number;
  team: string;
}

export class StepRunner {
  constructor(private readonly actor: Actor) {}

  async run(localId: string, epoch: number, team: string, req: Schemas['DoRequest']): Promise<Schemas['DoResult']> {
    const t0 = performance.now();
    const ctx = { localId, epoch, team };
    const digest = planDigest(req.steps);
    const from = req.from ?? 0;
    if (req.from !== undefined || req.planDigest !== undefined) {
      if (req.planDigest !== digest)
        throw new DeviceError(
          'PLAN_CHANGED',
          `this plan's digest is ${digest}, not ${req.planDigest ?? '(none given)'}: a resume continues only the plan that stopped`,
          'send the same steps with the planDigest the divergence report gave, or run the new plan from the start',
        );
      if (from >= req.steps.length)
        throw new DeviceError('VALIDATION_FAILED', `from ${from} is past the last step (${req.steps.length - 1})`, 'from is a step index, counted from 0');
    }
    const steps: StepResult[] = req.steps.slice(0, from).map((s, index) => ({
      index,
      action: s.action,
      status: 'skipped',
      verdict: null,
      detail: 'before the resume point',
      triage: [],
      ms: 0,
      ...(s.source ? { source: s.source } : {}),
    }));
    const blocks = new Blocks(req.blocks ?? [], req.steps.length);
    if (blocks.any && from > 0)
      throw new DeviceError('VALIDATION_FAILED', 'a plan with blocks runs from its start', 'send it again without from and planDigest');
    const always = blocks.always();
    const divergence = await this.walk(ctx, req.steps, blocks, from, always?.first ?? req.steps.length, steps, digest);
    // Maestro's onFlowComplete: run whatever happened before it; the first failure stays the answer
    if (always) {
      const after = await this.walk(ctx, req.steps, new Blocks(req.blocks ?? [], req.steps.length), always.first, req.steps.length, steps, digest);
      if (!divergence && after) return this.result(ctx, steps, digest, after, t0);
    }
    return this.result(ctx, steps, digest, divergence, t0);
  }

  /** Runs steps from..to-1 (blocks steering), appending their results; the divergence that stopped them, or null. */
  private async walk(
    ctx: Ctx,
    all: Step[],
    blocks: Blocks,
    from: number,
    to: number,
    steps: StepResult[],
    digest: string,
  ): Promise<Schemas['Divergence'] | null> {
    let index = from;
    while (index < to) {
      checkDeadline(`step ${index} of the run`);
      const skipped = await blocks.enterAt(index, all, steps, (c) => this.holds(ctx, c));
      if (skipped === null) {
        const step = all[index]!;
        const { result, failed } = await this.step(ctx, step, index);
        steps.push(result);
        if (failed && step.optional) result.status = 'skipped';
        else if (failed) {
          const again = blocks.retry(index);
          if (!again) return this.divergence(ctx, step, index, failed, digest, !blocks.any);
          result.detail += ` (retry ${again.attempt} of ${again.block.retries}: the block from step ${again.block.first} runs again)`;
          index = again.block.first;
          continue;
        }
      }
      const last = skipped ?? index;
      const next = await blocks.leaveAt(last, all, (c) => this.holds(ctx, c));
      if (typeof next === 'object') return this.divergence(ctx, all[last]!, last, next, digest, false);
      index = next ?? last + 1;
    }
    return null;
  }

  private async result(ctx: Ctx, steps: StepResult[], digest: string, divergence: Schemas['Divergence'] | null, t0: number): Promise<Schemas['DoResult']> {
    const end = divergence ? null : await this.read(ctx);
    return {
      steps,
      completed: steps.filter((s) => s.status === 'done').length,
      planDigest: digest,
      divergence,
      screen: divergence ? divergence.screen : identity(end!),
      outline: divergence ? divergence.outline : outlineText(end!.reading, this.actor.understanding.header(ctx.localId, end!)),
      totalMs: Math.round(performance.now() - t0),
    };
  }

  /** One step, with the triage loop around its attempts. */
  private async step(ctx: Ctx, step: Step, index: number): Promise<{ result: StepResult; failed: Failed | null }> {
    const t0 = performance.now();
    const rulings: Triage[] = [];
    let attempt = await this.attempt(ctx, step);
    while (!attempt.ok) {
      const failed = attempt.failed!;
      const ruling = triage({ code: failed.code, touched: failed.touched, screenBusy: this.busy(ctx), earlier: rulings });
      rulings.push(ruling);
      if (ruling.decision === 'stop') break;
      checkDeadline(`the ${ruling.decision} the rules chose for step ${index}`);
      await this.settle(ctx, step.timeoutMs ?? WAIT_DEFAULT_MS);
      checkDeadline(`the ${ruling.decision} the rules chose for step ${index}`);
      if (ruling.decision === 'wait' && (failed.code === 'timeout' || failed.code === 'no-visible-change') && failed.touched)
        attempt = await this.lookAgain(ctx, step, failed);
      else attempt = await this.attempt(ctx, step);
    }
    const result: StepResult = {
      index,
      action: step.action,
      status: attempt.ok ? 'done' : 'failed',
      verdict: attempt.verdict,
      detail: attempt.ok ? attempt.detail : attempt.failed!.message,
      triage: rulings,
      ms: Math.round(performance.now() - t0),
      ...(attempt.result ? { result: attempt.result } : attempt.failed?.result ? { result: attempt.failed.result } : {}),
      ...(attempt.screen ? { screen: attempt.screen } : attempt.result ? { screen: attempt.result.screen } : {}),
      ...(attempt.fill ? { fill: attempt.fill } : {}),
      ...(attempt.image ? { image: attempt.image } : {}),
      ...(step.source ? { source: step.source } : {}),
    };
    return { result, failed: attempt.ok ? null : attempt.failed! };
  }

  private async attempt(ctx: Ctx, step: Step): Promise<Attempt> {
    try {
      switch (step.action) {
        case 'wait':
          return await this.waitStep(ctx, step);
        case 'assert':
          return await this.assertStep(ctx, step);
        case 'fill':
          return await this.fillStep(ctx, step);
        case 'screenshot':
          return await this.screenshot(ctx, step);
        default:
          return await this.action(ctx, step as Schemas['ActionRequest'] & Step);
      }
    } catch (err) {
      if (!(err instanceof DeviceError) || err instanceof DeadlinePassed) throw err;
      const code = codeOf(err.code);
      return { ok: false, verdict: null, detail: err.message, failed: { code, message: err.message, hint: err.hint ?? '', touched: false } };
    }
  }

  private async action(ctx: Ctx, step: Schemas['ActionRequest'] & Step): Promise<Attempt> {
    const u = this.actor.understanding;
    const recorded = step.expect?.binding;
    let chosen;
    if (recorded && step.target && step.action !== 'scroll') {
      const before = (await u.current(ctx.localId, ctx.epoch, ctx.team)).read;
      const check = checkBinding(before.reading, recorded);
      if (check.index === null) {
        const message = `the recorded ${recorded.role} ${JSON.stringify(recorded.label)}${recorded.id ? ` (#${recorded.id})` : ''} is not on screen ${describe(before)}`;
        return fail(
          'selector-miss',
          message,
          'read the outline: the control may have moved to another screen, or a step before this one ended somewhere else',
          false,
          { binding: { recorded, observed: null, matchCount: 0 } },
        );
      }
      if (check.mismatch) {
        return fail(
          'identity-mismatch',
          `not touched: ${check.mismatch}`,
          'the app changed under the recording: check the observed element against the recorded one, put the screen right or record this step again, then resume',
          false,
          { binding: { recorded, observed: check.observed, matchCount: check.matchCount } },
        );
      }
      chosen = { index: check.index, before };
    }
    const { expect, source: _s, optional: _o, note: _n, ...request } = step;
    const result = await this.actor.act(ctx.localId, ctx.epoch, ctx.team, request as Schemas['ActionRequest'], {
      guardDestructive: true,
      ...(chosen ? { chosen } : {}),
      ...(expect?.to ? { expectTo: expect.to } : {}),
    });
    return this.judge(result, expect);
  }

  /** An action's result as a step outcome: a verdict that says it went wrong is a failure. */
  private judge(result: Schemas['ActionResult'], expect: Step['expect']): Attempt {
    const approximate = result.match?.approximate ? ` (the nearest label to ${JSON.stringify(result.match.asked)}: an approximate match)` : '';
    const detail = `${result.action}${result.target ? ` ${result.target.role} ${JSON.stringify(result.target.label)}` : ''}${approximate}: ${result.verdict} (${result.reason})`;
    if (result.verdict === 'unexpected-screen') {
      const want = expect?.to ?? result.evidence.predicted?.id ?? null;
      return {
        ok: false,
        verdict: result.verdict,
        detail,
        result,
        failed: {
          code: 'unexpected-screen',
          message: `ended on screen ${result.screen.id}${result.screen.name ? ` ${JSON.stringify(result.screen.name)}` : ''}, not ${want}${expect?.toName ? ` ${JSON.stringify(expect.toName)}` : ''}`,
          hint: 'the outline shows where it went: put the screen right, then resume from the next step',
          touched: true,
          expected: want,
          result,
        },
      };
    }
    // A scroll at the end of its content has done what a scroll can: nothing moved, and saying so
    // is the verdict, but the run goes on (Maestro's scroll never fails either); a step that needs
    // something further down finds out for itself.
    if (result.verdict === 'no-visible-change' && result.scrolled?.atEnd)
      return { ok: true, verdict: result.verdict, detail: `${detail}: the content is at its end`, result };
    if (result.verdict === 'no-visible-change')
      return {
        ok: false,
        verdict: result.verdict,
        detail,
        result,
        failed: {
          code: 'no-visible-change',
          message: `${detail}`,
          hint: 'the control may be disabled, covered, or waiting for something earlier',
          touched: true,
          result,
        },
      };
    if (result.verdict === 'not-delivered') {
      const suspect = result.evidence.delivery?.suspect ? '; several inputs in a row have not arrived: the device is suspect' : '';
      // Never repeated: where the platform cannot count inputs, it may have arrived after all.
      return {
        ok: false,
        verdict: result.verdict,
        detail,
        result,
        failed: {
          code: 'not-delivered',
          message: `${detail}${suspect}`,
          hint: "the device's input may have detached: look at the device, reset it (POST /v1/devices/{id}/reset) if it stays so, then resume",
          touched: true,
          result,
        },
      };
    }
    if (result.settle.status === 'not-settled')
      return {
        ok: false,
        verdict: result.verdict,
        detail,
        result,
        failed: {
          code: 'timeout',
          message: `the screen had not settled after ${result.settle.waitedMs} ms${result.settle.movingRegion ? ` (still moving at ${JSON.stringify(result.settle.movingRegion.box)})` : ''}`,
          hint: 'raise timeoutMs for this step if the screen is slow, or look at what keeps moving',
          touched: true,
          result,
        },
      };
    return { ok: true, verdict: result.verdict, detail, result };
  }

  /** After a wait on a step whose input was played: did it come good late? It is never played again. */
  private async lookAgain(ctx: Ctx, step: Step, failed: Failed): Promise<Attempt> {
    // A stream starved under load can sit on an old frame: draw the screen now before judging.
    const eyes = this.actor.eyesOf(ctx.localId);
    if (!(await eyes.confirmStill())) await this.settle(ctx, step.timeoutMs ?? WAIT_DEFAULT_MS);
    const now = await this.read(ctx);
    const before = failed.result?.evidence.before.id;
    const expected = step.expect?.to ?? failed.result?.evidence.predicted?.id;
    const settled = this.actor.eyesOf(ctx.localId).activity.isSettled();
    const moved = before !== undefined && now.identified.node.id !== before;
    const screen = identity(now);
    if (failed.code === 'timeout' && settled && (!expected || now.identified.node.id === expected))
      return {
        ok: true,
        verdict: expected ? 'ok' : 'unverified',
        detail: `settled late on screen ${describe(now)}`,
        screen,
        ...(failed.result ? { result: failed.result } : {}),
      };
    if (failed.code === 'no-visible-change' && !moved && changedLate(failed.result, now))
      return {
        ok: true,
        verdict: 'ok',
        detail: 'the element changed state late, on the same screen',
        screen,
        ...(failed.result ? { result: failed.result } : {}),
      };
    if (failed.code === 'no-visible-change' && moved) {
      if (expected && now.identified.node.id !== expected)
        return {
          ok: false,
          verdict: 'unexpected-screen',
          detail: 'changed late, to another screen',
          failed: { ...failed, code: 'unexpected-screen', message: `changed late, to screen ${describe(now)}, not ${expected}`, expected },
        };
      return { ok: true, verdict: expected ? 'ok' : 'unverified', detail: `changed late, to screen ${describe(now)}`, screen };
    }
    return { ok: false, verdict: failed.result?.verdict ?? null, detail: failed.message, failed };
  }

  private async waitStep(ctx: Ctx, step: Step): Promise<Attempt> {
    const timeoutMs = step.timeoutMs ?? WAIT_DEFAULT_MS;
    const eyes = this.actor.eyesOf(ctx.localId);
    const quietMs = step.quietMs ?? this.actor.quietMs;
    if (step.for === 'settled' || !named(step)) {
      const r = await eyes.wait({ for: 'settled', timeoutMs, quietMs, changeTimeoutMs: 0, since: undefined });
      if (r.status === 'not-settled')
        return fail(
          'timeout',
          `the screen did not settle within ${timeoutMs} ms${r.movingRegion ? ` (moving at ${JSON.stringify(r.movingRegion.box)})` : ''}`,
          'raise timeoutMs, or look at what keeps moving',
          false,
        );
      return { ok: true, verdict: 'ok', detail: `settled after ${r.waitedMs} ms` };
    }
    const want = step.for !== 'not-visible';
    const found = await this.until(ctx, step, want, timeoutMs);
    if (found.ok) return { ok: true, verdict: 'ok', detail: `${what(step)} ${want ? 'visible' : 'gone'} after ${found.ms} ms` };
    return fail(
      'timeout',
      `${what(step)} was ${want ? 'not visible' : 'still visible'} after ${timeoutMs} ms on screen ${describe(found.read)}`,
      'read the outline: the label may differ, or the screen may need a step first',
      false,
    );
  }

  private async assertStep(ctx: Ctx, step: Step): Promise<Attempt> {
    if (!named(step) || !step.that)
      throw new DeviceError(
        'VALIDATION_FAILED',
        'an assert needs a target and that (visible, not-visible or value)',
        'for example {"action":"assert","that":"visible","target":"Saved"}',
      );
    const eyes = this.actor.eyesOf(ctx.localId);
    await eyes.wait({ for: 'settled', timeoutMs: 5000, quietMs: step.quietMs ?? this.actor.quietMs, changeTimeoutMs: 0, since: undefined });
    if (step.that === 'value') {
      if (step.value === undefined) throw new DeviceError('VALIDATION_FAILED', 'an assert of a value needs value', 'add "value"');
      const read = await this.read(ctx);
      const p = presence(this.actor.understanding, ctx.localId, ctx.epoch, read, named(step)!, step.role);
      const shown = p.index !== null ? (read.reading.elements[p.index]!.value ?? '') : null;
      if (shown === step.value) return { ok: true, verdict: 'ok', detail: `${what(step)} holds ${JSON.stringify(shown)}` };
      return fail(
        'assertion-failed',
        p.index === null
          ? `${what(step)} is not on screen ${describe(read)}`
          : `${what(step)} holds ${JSON.stringify(shown)}, not ${JSON.stringify(step.value)}`,
        'read the outline for what the screen shows',
        false,
      );
    }
    const want = step.that === 'visible';
    const found = await this.until(ctx, step, want, step.timeoutMs ?? 0);
    if (found.ok) return { ok: true, verdict: 'ok', detail: `${what(step)} is ${want ? 'visible' : 'not visible'}` };
    return fail(
      'assertion-failed',
      `${what(step)} is ${want ? 'not visible' : 'visible'} on screen ${describe(found.read)}`,
      'read the outline for what the screen shows',
      false,
    );
  }

  /** Polls a settled screen until the target's presence is `want`, or the time is up (0: look once). */
  private async until(ctx: Ctx, step: Step, want: boolean, timeoutMs: number): Promise<{ ok: boolean; ms: number; read: Read }> {
    const eyes = this.actor.eyesOf(ctx.localId);
    const t0 = performance.now();
    const deadline = t0 + timeoutMs;
    for (;;) {
      const mark = eyes.mark(ctx.epoch, { byId: false });
      const read = await this.read(ctx);
      if (presence(this.actor.understanding, ctx.localId, ctx.epoch, read, named(step)!, step.role).visible === want)
        return { ok: true, ms: Math.round(performance.now() - t0), read };
      const left = deadline - performance.now();
      if (left <= 0) return { ok: false, ms: Math.round(performance.now() - t0), read };
      // Nothing to look at until the screen changes, and nothing worth reading until it settles.
      await eyes.wait({ for: 'settled', timeoutMs: left, quietMs: step.quietMs ?? this.actor.quietMs, changeTimeoutMs: left, since: mark });
    }
  }

  private async fillStep(ctx: Ctx, step: Step): Promise<Attempt> {
    if (!step.fields?.length)
      throw new DeviceError('VALIDATION_FAILED', 'a fill step needs fields', 'for example {"action":"fill","fields":[{"target":"Email","value":"a@b.c"}]}');
    const out = await fill(
      { device: this.actor.backendOf(ctx.localId), eyes: this.actor.eyesOf(ctx.localId), settledRead: () => this.settledRead(ctx, step) },
      step.fields,
    );
    const summary = { filled: out.filled, viewports: out.viewports, missing: out.missing };
    if (out.missing.length)
      return {
        ok: false,
        verdict: null,
        detail: out.problems.join('; '),
        fill: summary,
        failed: {
          code: out.problems.some((p) => p.includes('shows')) ? 'assertion-failed' : 'selector-miss',
          message: `${out.filled.length} of ${step.fields.length} fields filled in ${out.viewports} viewports: ${out.problems.join('; ')}`,
          hint: 'the outline shows the form as it is now; field names are the labels it shows',
          touched: true,
        },
      };
    if (!step.submit) return { ok: true, verdict: 'ok', detail: `${out.filled.length} fields filled in ${out.viewports} viewports`, fill: summary };
    const submit = {
      target: step.submit,
      ...(step.allowDestructive ? { allowDestructive: true } : {}),
      ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}),
    };
    checkDeadline(`submitting the form with ${JSON.stringify(step.submit)}`);
    await this.actor.act(ctx.localId, ctx.epoch, ctx.team, { action: 'scroll', to: step.submit, direction: 'down' });
    checkDeadline(`submitting the form with ${JSON.stringify(step.submit)}`);
    const result = await this.actor.act(ctx.localId, ctx.epoch, ctx.team, { action: 'tap', ...submit }, { guardDestructive: true });
    const judged = this.judge(result, undefined);
    return { ...judged, fill: summary, detail: `${out.filled.length} fields filled in ${out.viewports} viewports; ${judged.detail}` };
  }

  private async screenshot(ctx: Ctx, step: Step): Promise<Attempt> {
    const device = this.actor.backendOf(ctx.localId);
    await this.settle(ctx, step.timeoutMs ?? WAIT_DEFAULT_MS);
    const shot = await device.screenshot({ scale: 1 });
    // Point-scaled: an image in the units taps are given in, and a third of the bytes of a 3x one.
    const png = await pointScaled(shot.png, shot.width / shot.scale);
    return { ok: true, verdict: 'ok', detail: `${step.name ?? 'screenshot'}: ${png.length} bytes`, image: png.toString('base64') };
  }

  private async divergence(ctx: Ctx, step: Step, index: number, failed: Failed, digest: string, resumable = true): Promise<Schemas['Divergence']> {
    const read = await this.read(ctx);
    this.actor.understanding.number(ctx.localId, ctx.epoch, read); // the report's refs are usable at once
    this.actor.logger.info(
      {
        localId: ctx.localId,
        index,
        code: failed.code,
        message: failed.message,
        screen: read.identified.node.id,
        source: step.source ?? null,
        binding: failed.binding ?? null,
      },
      'run stopped: divergence',
    );
    return {
      index,
      code: failed.code,
      message: `step ${index} (${step.action}${step.target ? ` ${JSON.stringify(step.target)}` : ''}${step.source ? ` at ${step.source.file}:${step.source.line}` : ''}): ${failed.message}`,
      hint: failed.hint,
      step,
      ...(step.source ? { source: step.source } : {}),
      ...(failed.binding ? { binding: failed.binding } : {}),
      ...(failed.expected !== undefined ? { expected: failed.expected } : {}),
      screen: identity(read),
      outline: outlineText(read.reading, this.actor.understanding.header(ctx.localId, read)),
      resume: { allowed: resumable, from: failed.touched || touchedFor(failed.code) ? index + 1 : index, planDigest: digest },
    };
  }

  /** Whether a block's condition holds on the settled screen (looked for again until timeoutMs, if given). */
  private async holds(ctx: Ctx, c: StepCondition): Promise<boolean> {
    if (c.platform && c.platform !== this.actor.backendOf(ctx.localId).platform) return false;
    if (!c.visible && !c.notVisible) return true;
    const timeoutMs = c.timeoutMs ?? 0;
    await this.settle(ctx, WAIT_DEFAULT_MS);
    if (c.visible && !(await this.until(ctx, { action: 'wait', select: c.visible }, true, timeoutMs)).ok) return false;
    if (c.notVisible && !(await this.until(ctx, { action: 'wait', select: c.notVisible }, false, timeoutMs)).ok) return false;
    return true;
  }

  private busy(ctx: Ctx): boolean {
    const a = this.actor.eyesOf(ctx.localId).activity;
    return !a.isSettled() || (a.lastMotion !== undefined && performance.now() - a.lastMotion < BUSY_MS);
  }

  private async settle(ctx: Ctx, timeoutMs: number): Promise<void> {
    await this.actor.eyesOf(ctx.localId).wait({ for: 'settled', timeoutMs, quietMs: this.actor.quietMs, changeTimeoutMs: 0, since: undefined });
  }

  private async settledRead(ctx: Ctx, step: Step): Promise<Read> {
    await this.settle(ctx, step.timeoutMs ?? WAIT_DEFAULT_MS);
    return this.read(ctx);
  }

  private async read(ctx: Ctx): Promise<Read> {
    return (await this.actor.understanding.current(ctx.localId, ctx.epoch, ctx.team)).read;
  }
}

/** The acted element, found again on the screen now, in another state or holding another value. */
function changedLate(result: Schemas['ActionResult'] | undefined, now: Read): boolean {
  const t = result?.target;
  if (!t) return false;
  const el = now.reading.elements.find((e) => (t.id ? e.id === t.id : e.role === t.role && e.label === t.label));
  if (!el) return false;
  const a = result.evidence.stateBefore ?? {};
  const b = el.states;
  return (
    (a.checked ?? false) !== (b.checked ?? false) ||
    (a.selected ?? false) !== (b.selected ?? false) ||
    (a.expanded ?? false) !== (b.expanded ?? false) ||
    (t.value ?? null) !== (el.value ?? null)
  );
}

function fail(code: Code, message: string, hint: string, touched: boolean, extra: Partial<Failed> = {}): Attempt {
  return { ok: false, verdict: null, detail: message, failed: { code, message, hint, touched, ...extra } };
}

function codeOf(code: string): Code {
  switch (code) {
    case 'NO_MATCH':
      return 'selector-miss';
    case 'AMBIGUOUS':
      return 'ambiguous';
    case 'STALE_REF':
      return 'stale-ref';
    case 'DESTRUCTIVE_REFUSED':
      return 'destructive-refused';
    default:
      return 'action-failed';
  }
}

const describe = (r: Read) => `${r.identified.node.id}${r.identified.node.name ? ` ${JSON.stringify(r.identified.node.name)}` : ''}`;

/** What a wait or assert looks for: its target, or its Maestro selector. */
function named(step: Step): string | Selector | undefined {
  return step.target ?? step.select;
}

function what(step: Step): string {
  return step.target !== undefined ? JSON.stringify(step.target) : step.select ? describeSelector(step.select) : '(nothing)';
}
