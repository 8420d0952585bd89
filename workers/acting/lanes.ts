// One input-bearing call at a time per device. Two touch sequences played into one device at once
// corrupt each other: a soak saw Chromium refuse the second's moves ("Must send a TouchStart first")
// after the gateway had given up on a slow scroll whose drag was still playing, and the agent had
// sent its next action. Calls on different devices never wait for each other.
export class DeviceLanes {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier call on this device has finished (failed or not). */
  run<T>(localId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(localId) ?? Promise.resolve();
    const result = previous.then(fn);
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
