// The verdict on one action, from a closed set, with its evidence. It rests on which screen the
// action ended on (against the graph's prediction) and on the acted element's own state; the motion
// kind is reported beside it, never instead. A switch that flipped is not "no visible change": the
// tree's state says it changed even when the pixels barely do.

export type Verdict = 'ok' | 'no-visible-change' | 'not-delivered' | 'unexpected-screen' | 'unverified';

export interface VerdictInput {
  /** How the wait after the action ended. */
  settle: 'settled' | 'no-change' | 'not-settled' | 'changed';
  /** The screen node before and after, and the predicted one (null: no known edge). */
  before: string;
  after: string;
  predicted: string | null;
  /**
   * The action did what it does in place: the acted element changed state or value, or the content
   * moved as a scroll asked. `changedHow` says which, for the reason.
   */
  stateChanged: boolean;
  changedHow?: string;
  /**
   * Whether the input reached the app: true or false where the platform counts inputs (web), null
   * where it cannot tell, undefined for actions that are not input (back, open, launch).
   */
  delivered?: boolean | null;
  /**
   * Whether what the screen says changed: an element came or went, or one's words, value or state
   * changed (the readings before and after). Undefined where no reading was compared.
   */
  contentChanged?: boolean;
  /**
   * Keys meant for a field were held back because none had the focus (the tap left it on the page's
   * body and no field at the point would take it): why, in words. The text never arrived.
   */
  typedNowhere?: string;
}

export interface VerdictOutcome {
  verdict: Verdict;
  /** Why, in a sentence a person can check against the evidence. */
  reason: string;
}

export function decide(i: VerdictInput): VerdictOutcome {
  if (i.typedNowhere) return { verdict: 'not-delivered', reason: i.typedNowhere };
  if (i.settle === 'not-settled') return { verdict: 'unverified', reason: 'the screen had not settled when the wait ended' };
  if (i.settle === 'no-change' && !i.stateChanged) {
    // Nothing changed. That the input reached the app and the app ignored it, or that it never got
    // there (an input service that detached), look the same on screen: only the platform's own
    // count of inputs tells them apart, and without one the verdict says it may not have arrived.
    if (i.delivered === false)
      return { verdict: 'not-delivered', reason: 'nothing changed on screen or in the tree, and the app received no input: it was not delivered' };
    if (i.delivered === null)
      return {
        verdict: 'not-delivered',
        reason: 'nothing changed on screen or in the tree, and the platform cannot confirm the input arrived: it may not have been delivered',
      };
    return {
      verdict: 'no-visible-change',
      reason: `nothing changed on screen and the element kept its state${i.delivered ? ' (the app received the input)' : ''}`,
    };
  }
  if (i.predicted !== null) {
    // Staying on the screen it started on is no evidence by itself: an action that did nothing
    // stays too, and a few pixels that moved meanwhile (a focus ring, a transition the last action
    // began) do not say it did anything. It is ok only when what the screen says changed.
    if (i.after === i.predicted && i.after === i.before && !i.stateChanged && i.contentChanged === false)
      return {
        verdict: 'unverified',
        reason: `stayed on screen ${i.after} as this action has before, but only pixels changed: nothing the screen says and no state changed, so it cannot tell the action did anything`,
      };
    if (i.after === i.predicted) return { verdict: 'ok', reason: `ended on screen ${i.after}, as this action has before` };
    return { verdict: 'unexpected-screen', reason: `ended on screen ${i.after}; this action has led to ${i.predicted} before` };
  }
  if (i.stateChanged && i.after === i.before) return { verdict: 'ok', reason: `${i.changedHow ?? 'the element changed state'} on the same screen` };
  return { verdict: 'unverified', reason: 'the first time this action was taken here: nothing to compare the outcome with' };
}
