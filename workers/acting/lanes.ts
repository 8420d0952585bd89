// One input-bearing call at a time per device. Two touch sequences played into one device at once
// corrupt each other: a soak saw Chromium refuse the second's moves ("Must send a TouchStart first")
// after the gateway had given up on a slow scroll whose drag was still playing, and the agent had
// sent its next action. Calls on different devices never wait for each other.
//
// A call waits its turn only as long as its caller waits for it (deadline.ts): past that it is
// answered COMMAND_TIMEOUT, not begun. The device stays held by the call that is running, however
// long that runs, so a call that gave up never lets the next one in beside it.
import { type Clock, systemClock } from '../clock.js';
import { LATE, within } from '../within.js';
import { checkDeadline, notBegun, withDeadline } from './deadline.js';

const WAITED = 'the call, which waited for the one before it on this device,';

export class DeviceLanes {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly clock: Clock = systemClock) {}

  /** Runs `fn` once every earlier call on this device has finished (failed or not), within `budgetMs` of now. */
  run<T>(localId: string, fn: () => Promise<T>, budgetMs?: number): Promise<T> {
    const previous = this.tails.get(localId) ?? Promise.resolve();
    let began = false;
    const result = withDeadline(
      budgetMs,
      async () => {
        if (budgetMs === undefined) await previous;
        // A wait that ran out is out, even when Node's whole-millisecond timer fires a hair before the
        // deadline as performance.now() measures it.
        else if ((await within(previous, budgetMs, this.clock)) === LATE) throw notBegun(WAITED);
        checkDeadline(WAITED);
        began = true;
        return fn();
      },
      this.clock,
    );
    // The lane frees when this call has finished, or — had it never begun — when the one before it has.
    const tail = result.then(
      () => undefined,
      () => (began ? undefined : previous),
    );
    this.tails.set(localId, tail);
    void tail.then(() => {
      if (this.tails.get(localId) === tail) this.tails.delete(localId);
    });
    return result;
  }

  /** Devices with a call running or waiting. */
  get busy(): number {
    return this.tails.size;
  }
}
