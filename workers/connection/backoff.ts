// Exponential backoff with full jitter, so a farm of workers does not redial in lockstep after
// a gateway restart.
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const ceiling = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(this.minMs / 2 + this.random() * (ceiling - this.minMs / 2));
  }

  reset(): void {
    this.attempt = 0;
  }
}
