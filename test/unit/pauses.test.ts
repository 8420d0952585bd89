// The gateway's own pauses, measured by a late tick: what counts as one, and how much of it falls
// after a given moment (the part of a worker's silence that nobody was listening to).
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { judgement, PauseOvertook, PauseWatch } from '../../server/domain/pauses.js';

const logger = pino({ level: 'silent' });
let watch: PauseWatch | undefined;
afterEach(() => watch?.stop());

function clocked() {
  let now = 1_000_000;
  const seen: number[] = [];
  watch = new PauseWatch(
    logger,
    (ms) => seen.push(ms),
    () => now,
  );
  return { watch, seen, advance: (ms: number) => (now += ms), now: () => now };
}

describe('a pause of the gateway', () => {
  it('is a tick later than its interval by 250 ms or more; ordinary lag is not one', () => {
    const { watch, seen, advance } = clocked();
    advance(300); // 200 ms late: lag
    watch.tick();
    expect(seen).toEqual([]);
    advance(5100); // 5 s late
    watch.tick();
    expect(seen).toEqual([5000]);
    expect(watch.total).toBe(1);
  });

  it('counts only the part of a pause after the moment asked about, and only pauses that ended after it', () => {
    const { watch, advance, now } = clocked();
    const before = now() - 1000; // heard from 1 s before the pause began
    advance(4100); // a 4 s pause ends now
    expect(watch.pausedSince(before)).toBe(4000);
    const midway = now() - 1000; // heard during the pause (its data read only now)
    expect(watch.pausedSince(midway)).toBe(1000);
    advance(50);
    expect(watch.pausedSince(now())).toBe(0); // heard after it
    expect(watch.pausesEndedAfter(now() - 100)).toEqual([{ ms: 4000, endedAgoMs: 50 }]);
    expect(watch.pausesEndedAfter(now())).toEqual([]);
  });

  it('is noticed by a judge that asks before the watch has ticked again', () => {
    const { watch, advance, now } = clocked();
    const heard = now();
    advance(3000); // no tick between: the judge's timer runs first after a pause
    expect(watch.pausedSince(heard)).toBe(2900);
  });

  it('voids a judgement it fell inside: confirm throws after a pause noticed since the allowance was taken', () => {
    const { watch, advance, now } = clocked();
    advance(2100); // an earlier 2 s pause, not yet noticed: it goes into the allowance
    const before = judgement(watch, 3_600_000, now);
    expect(before.allowance).toEqual([{ ms: 2000, endedAgoMs: 0 }]);
    advance(50);
    expect(() => before.confirm()).not.toThrow(); // ordinary time passing
    advance(3000); // paused while the query was on its way
    expect(() => before.confirm()).toThrow(PauseOvertook);
    // The next judgement has it in its allowance and stands.
    const after = judgement(watch, 3_600_000, now);
    expect(after.allowance.map((p) => p.ms)).toEqual([2000, 2900]);
    expect(() => after.confirm()).not.toThrow();
  });
});
