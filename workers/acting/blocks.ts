// A plan's blocks (DoRequest.blocks): ranges of its flat list of steps that run under a condition,
// repeat or retry, as Maestro's runFlow `when`, `repeat` and `retry` do. The list stays flat (step
// indices, results and divergence reports mean what they always did); the runner asks this walker
// where to go next. Blocks nest; two that overlap in part are refused before anything runs.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError } from '../devices/backend.js';
import { describeSelector } from '../understanding/select.js';
import type { Code } from './triage.js';

export type StepBlock = components['schemas']['StepBlock'];
export type StepCondition = components['schemas']['StepCondition'];
type Step = components['schemas']['Step'];
type StepResult = components['schemas']['StepResult'];
/** Asks the device whether a condition holds now. */
export type Holds = (c: StepCondition) => Promise<boolean>;
/** A repeat while that never ended, as the runner reports a failed step. */
export interface Endless {
  code: Code;
  message: string;
  hint: string;
  touched: boolean;
}

/** A while without times: Maestro loops on; simfleet stops here and fails the run. */
export const MAX_ROUNDS = 100;

export class Blocks {
  /** Blocks entered and not yet left. */
  private readonly active = new Set<StepBlock>();
  private readonly rounds = new Map<StepBlock, number>();
  private readonly retried = new Map<StepBlock, number>();

  constructor(
    private readonly blocks: readonly StepBlock[],
    steps: number,
  ) {
    for (const [i, b] of blocks.entries()) {
      if (b.first > b.last || b.last >= steps)
        throw new DeviceError(
          'VALIDATION_FAILED',
          `block ${i} runs from step ${b.first} to ${b.last}, outside steps 0..${steps - 1}`,
          'give first ≤ last < steps',
        );
      if (b.always && b.last !== steps - 1)
        throw new DeviceError(
          'VALIDATION_FAILED',
          `block ${i} runs always, so it must end with the plan's last step (${steps - 1}), not ${b.last}`,
          'put the always block last',
        );
      const clash = blocks.find((o) => o !== b && o.first < b.first && o.last >= b.first && o.last < b.last);
      if (clash)
        throw new DeviceError(
          'VALIDATION_FAILED',
          `blocks ${blocks.indexOf(clash)} (${clash.first}..${clash.last}) and ${i} (${b.first}..${b.last}) overlap in part`,
          'blocks nest inside one another or stand apart',
        );
    }
  }

  /** The block that runs even after a failure (Maestro's onFlowComplete), if the plan has one. */
  always(): StepBlock | undefined {
    return this.blocks.find((b) => b.always);
  }

  get any(): boolean {
    return this.blocks.length > 0;
  }

  /**
   * Enters the blocks that begin at `index`. A `when` that does not hold, or a `while` that does not
   * hold before the first round, skips the block: its steps are reported skipped, and the index of
   * its last step is returned (null when the step is to run).
   */
  async enterAt(index: number, all: Step[], results: StepResult[], holds: Holds): Promise<number | null> {
    for (const b of this.entering(index)) {
      const condition = b.when ?? b.repeat?.while;
      if (condition && !(await holds(condition))) {
        const why = `skipped: ${b.when ? 'when' : 'repeat while'} ${describeCondition(condition, describeSelector)} did not hold`;
        for (let i = b.first; i <= b.last; i++)
          results.push({
            index: i,
            action: all[i]!.action,
            status: 'skipped',
            verdict: null,
            detail: why,
            triage: [],
            ms: 0,
            ...(all[i]!.source ? { source: all[i]!.source } : {}),
          });
        return b.last;
      }
      this.enter(b);
    }
    return null;
  }

  /**
   * Leaves the blocks that end at `index`, innermost first. A repeat with rounds to go returns its
   * first step; a while still holding after its last allowed round is a failure; else undefined.
   */
  async leaveAt(index: number, all: Step[], holds: Holds): Promise<number | Endless | undefined> {
    for (const b of this.leaving(index)) {
      if (b.repeat) {
        const rounds = this.roundDone(b);
        const cap = b.repeat.times ?? MAX_ROUNDS;
        const more = rounds < cap && (!b.repeat.while || (await holds(b.repeat.while)));
        if (more) {
          this.restart(b);
          return b.first;
        }
        if (rounds >= cap && b.repeat.times === undefined && b.repeat.while && (await holds(b.repeat.while))) {
          const at = all[b.first]?.source;
          return {
            code: 'assertion-failed',
            message: `repeat while ${describeCondition(b.repeat.while, describeSelector)} still held after ${cap} rounds (steps ${b.first}..${b.last}${at ? `, ${at.file}:${at.line}` : ''})`,
            hint: 'give repeat a number of times, or check that its steps change what the condition looks at',
            touched: true,
          };
        }
      }
      this.leave(b);
    }
    return undefined;
  }

  /** The blocks that begin at this step and are not being looped back into, outermost first. */
  private entering(index: number): StepBlock[] {
    return this.blocks.filter((b) => b.first === index && !this.active.has(b)).sort((a, b) => b.last - a.last);
  }

  private enter(b: StepBlock): void {
    this.active.add(b);
    this.rounds.set(b, 0);
    this.retried.set(b, 0);
  }

  /** The active blocks that end at this step, innermost first. */
  private leaving(index: number): StepBlock[] {
    return this.blocks.filter((b) => b.last === index && this.active.has(b)).sort((a, b) => a.last - a.first - (b.last - b.first));
  }

  private leave(b: StepBlock): void {
    this.active.delete(b);
  }

  /** One more round of a repeat done: how many so far. */
  private roundDone(b: StepBlock): number {
    const n = (this.rounds.get(b) ?? 0) + 1;
    this.rounds.set(b, n);
    return n;
  }

  /** The innermost active retry block around this step with a retry left; it is counted and its inner blocks left. */
  retry(index: number): { block: StepBlock; attempt: number } | null {
    const around = this.blocks
      .filter((b) => this.active.has(b) && b.retries !== undefined && b.first <= index && index <= b.last)
      .sort((a, b) => a.last - a.first - (b.last - b.first));
    for (const b of around) {
      const done = this.retried.get(b) ?? 0;
      if (done >= b.retries!) continue;
      this.retried.set(b, done + 1);
      this.restart(b);
      return { block: b, attempt: done + 1 };
    }
    return null;
  }

  /** Back to a block's first step: the blocks inside it are left, to be entered afresh. */
  private restart(b: StepBlock): void {
    for (const inner of this.active) if (inner !== b && b.first <= inner.first && inner.last <= b.last) this.active.delete(inner);
  }
}

/** `visible (text ~ "Skip"), platform android` for reports. */
export function describeCondition(c: StepCondition, describe: (s: NonNullable<StepCondition['visible']>) => string): string {
  const parts: string[] = [];
  if (c.platform) parts.push(`platform ${c.platform}`);
  if (c.visible) parts.push(`visible (${describe(c.visible)})`);
  if (c.notVisible) parts.push(`not visible (${describe(c.notVisible)})`);
  return parts.join(' and ');
}
