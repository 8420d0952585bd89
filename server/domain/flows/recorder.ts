// What a recording keeps of a step that ran: the step as it can be replayed on another day and
// another device. Ephemeral targets (@N, #N, a label that happened to match fuzzily) become the
// element's durable selector, its id where it has one, else its label and role; and the identity
// evidence and the screens before and after go with it, for the replay to check. A first recording
// is kept whether or not its steps were verified: there is nothing yet to verify them against.
import type { Schemas } from '../../../openapi/contract.js';

type Step = Schemas['Step'];

/** Fields that name a target; rebuilt from the evidence when there is some. */
const TARGETING = ['target', 'role', 'index', 'or'] as const;

export function recordedStep(step: Step, result: Schemas['ActionResult'] | undefined): Step {
  const { expect: _e, source: _s, ...rest } = step;
  if (!result) return rest;
  const out: Step = { ...rest };
  const b = result.binding;
  const expect: NonNullable<Step['expect']> = {
    from: result.evidence.before.id,
    to: result.screen.id,
    fromName: result.evidence.before.name,
    toName: result.screen.name,
  };
  if (b) {
    const durable = b.id
      ? { target: `#${b.id}` }
      : b.label
        ? { target: b.label, role: b.role, ...(b.viewportOrder > 0 ? { index: b.viewportOrder } : {}) }
        : null;
    if (step.action === 'scroll') {
      // The evidence is of the element scrolled to: it becomes `to`; finding it is the check.
      if (durable) out.to = durable.target;
    } else if (durable) {
      for (const k of TARGETING) delete out[k];
      Object.assign(out, durable);
      expect.binding = b;
    }
  }
  if (result.evidence.destructive) out.allowDestructive = true; // it was chosen, with its label in view
  out.expect = expect;
  return out;
}

/** Steps of a /do run worth keeping: those that ran to their end, each with what it saw. */
export function recordedRun(
  req: Schemas['DoRequest'],
  res: Schemas['DoResult'],
): { step: Step; result: Schemas['ActionResult'] | undefined; verified: boolean }[] {
  return res.steps
    .filter((r) => r.status === 'done')
    .map((r) => ({ step: recordedStep(req.steps[r.index]!, r.result), result: r.result, verified: r.verdict === 'ok' }));
}
