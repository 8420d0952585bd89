// How often this worker tells the farm it recognised a known screen again: at most once a minute per
// screen. Warm reads happen on every action; a write for each would flood the link and the database
// to move a timestamp by a few seconds.

export const CONFIRM_EVERY_MS = 60_000;
/** Screens tracked at most; the least recently confirmed are forgotten first (and may confirm early). */
const MAX_TRACKED = 2000;

export class ConfirmThrottle {
  private readonly last = new Map<string, number>();

  constructor(private readonly everyMs = CONFIRM_EVERY_MS) {}

  /** True when the screen was not confirmed within the interval; it counts as confirmed now if so. */
  take(screen: string, now: number): boolean {
    const at = this.last.get(screen);
    if (at !== undefined && now - at < this.everyMs) return false;
    this.note(screen, now);
    return true;
  }

  /** The screen was written in full (taught): that confirms it too. */
  note(screen: string, now: number): void {
    this.last.delete(screen); // re-inserted last: the map's order is the order of confirmation
    this.last.set(screen, now);
    if (this.last.size > MAX_TRACKED) this.last.delete(this.last.keys().next().value!);
  }
}
