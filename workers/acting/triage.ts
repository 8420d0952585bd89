// What to do about a failed step, decided by fixed rules in milliseconds, with no model: wait (let
// the screen finish and look again), retry (play the step again), or stop. The rules can only pick
// among those three words: they cannot invent a step, skip one, choose another target or continue
// past an unexpected screen. A wrong wait costs a settle; a wrong stop abandons a plan that would
// have worked; a wrong retry of a touch that landed can submit twice, so a touch is never retried.
import type { components } from '../../openapi/generated/types.js';

type Schemas = components['schemas'];
export type Code = Schemas['DivergenceCode'];
export type Triage = Schemas['Triage'];

export interface Failure {
  code: Code;
  /** Whether the device took input during the failed attempt. */
  touched: boolean;
  /** The screen was still changing, or changed within the last second, when the step failed. */
  screenBusy: boolean;
  /** Rulings already made on this step. */
  earlier: Triage[];
}

export function triage(f: Failure): Triage {
  const waited = f.earlier.some((t) => t.decision === 'wait');
  const retried = f.earlier.some((t) => t.decision === 'retry');
  const rule = (decision: Triage['decision'], why: string): Triage => ({ decision, rule: why, code: f.code });
  switch (f.code) {
    case 'selector-miss':
    case 'ambiguous':
      // A step that had already acted (a form half filled) is not run again over its own work.
      if (f.touched) return rule('stop', 'not found after the step had already acted: it is not run again');
      // A list still loading, a screen mid-transition: the element may be a moment away.
      if (f.screenBusy && !waited) return rule('wait', 'the target was not found while the screen was still changing: wait for it to settle and look again');
      return rule('stop', waited ? 'still not found once the screen had settled' : 'not found on a settled screen');
    case 'timeout':
      // A wait step that ran out has had the time it asked for.
      if (!f.touched) return rule('stop', 'the wait ran out the time it was given');
      if (!waited) return rule('wait', 'the screen had not settled: give it one more timeout');
      return rule('stop', 'the screen did not settle within two timeouts');
    case 'action-failed':
      if (!f.touched && !retried) return rule('retry', 'the device refused the input before anything was played: try once more');
      return rule('stop', f.touched ? 'the input may have been played: never repeated' : 'the device refused the input twice');
    case 'not-delivered':
      return rule('stop', 'the input did not reach the app: waiting or repeating cannot put a detached input right');
    case 'no-visible-change':
      if (!waited) return rule('wait', 'nothing changed yet: a slow screen may still answer');
      return rule('stop', 'nothing changed after waiting: the touch is not repeated (it may have landed)');
    default:
      return rule('stop', `${f.code} is not something waiting or retrying can put right`);
  }
}

/** Whether the step's input had been played when it failed with this code. */
export function touchedFor(code: Code): boolean {
  return code === 'unexpected-screen' || code === 'no-visible-change' || code === 'not-delivered' || code === 'timeout';
}
