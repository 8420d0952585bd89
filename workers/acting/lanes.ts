// One input-bearing call at a time per device. Two touch sequences played into one device at once
// corrupt each other: a soak saw Chromium refuse the second's moves ("Must send a TouchStart first")
// after the gateway had given up on a slow scroll whose drag was still playing, and the agent had
// sent its next action. Calls on different devices never wait for each other. A call whose caller's
// time ran out while it waited its turn is not begun (deadline.ts).
import { checkDeadline, withDeadline } from './deadline.js';

export class DeviceLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier call on this device has finished (failed or not), within `budgetMs` of now. */
  run<T>(localId: string, fn: () => Promise<T>, budgetMs?: number): Promise<T> {
    const previous = this.tails.get(localId) ?? Promise.resolve();
    const result = withDeadline(budgetMs, () =>
      previous.then(() => {
        checkDeadline('the call, which waited for the one before it on this device,');
        return fn();
      }),
    );
    const tail = result.then(
      () => undefined,
      () => undefined,
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
