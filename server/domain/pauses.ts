// The gateway's own pauses. A gateway that stops running for a while (a long GC, CPU starvation, a
// VM migration, SIGSTOP) wakes with every worker's heartbeats still unread in its sockets, and its
// timers fire before it reads them. Judged by the clock alone, every host it holds has been silent
// past the timeout, and every session on them would end host-lost. Silence is evidence only for
// the time this process was listening, so the judges of silence (the liveness sweep, a link's
// silence timer) subtract the pauses that fell inside it.
import type { Logger } from 'pino';

export interface Pause {
  endedAt: number;
  ms: number;
}

export interface PauseClock {
  /** How long the process was paused after `since` (ms since the epoch): the part of each pause after it. */
  pausedSince(since: number): number;
  /** Every pause that ended after `since`: its length, and how long ago (from now) it ended. */
  pausesEndedAfter(since: number): RecentPause[];
}

/** A pause as a judge in the database takes it: relative to now, so the clocks need not agree. */
export interface RecentPause {
  ms: number;
  endedAgoMs: number;
}

const TICK_MS = 100;
// A late tick shorter than this is ordinary event-loop lag, not a pause worth an allowance.
const MIN_PAUSE_MS = 250;
const KEEP = 64;

export class PauseWatch implements PauseClock {
  private lastTick: number;
  private readonly pauses: Pause[] = [];
  private readonly timer: NodeJS.Timeout;
  total = 0;

  constructor(
    private readonly logger: Logger,
    private readonly onPause: (ms: number) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.lastTick = now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /**
   * Notes a pause if the clock jumped since the last tick. Judges call it (through pausedSince)
   * before they judge: after a pause, their timers can run before this watch's own tick does.
   */
  tick(): void {
    const now = this.now();
    const late = now - this.lastTick - TICK_MS;
    this.lastTick = now;
    if (late < MIN_PAUSE_MS) return;
    this.pauses.push({ endedAt: now, ms: late });
    if (this.pauses.length > KEEP) this.pauses.shift();
    this.total++;
    this.onPause(late);
    this.logger.warn({ pausedMs: late }, 'the gateway was paused; silence is judged on the time it was listening');
  }

  pausedSince(since: number): number {
    this.tick();
    let sum = 0;
    for (const p of this.pauses) if (p.endedAt > since) sum += Math.min(p.ms, p.endedAt - since);
    return sum;
  }

  pausesEndedAfter(since: number): RecentPause[] {
    this.tick();
    const now = this.now();
    return this.pauses.filter((p) => p.endedAt > since).map((p) => ({ ms: p.ms, endedAgoMs: now - p.endedAt }));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** For tests and tools that judge silence without a running process to watch. */
export const NO_PAUSES: PauseClock = { pausedSince: () => 0, pausesEndedAfter: () => [] };

/** A pause of this gateway noticed after a judgement's allowance was taken: the judgement is void. */
export class PauseOvertook extends Error {
  constructor(readonly pausedMs: number) {
    super(`this gateway was paused for ${pausedMs} ms while a deadline was being judged`);
  }
}

export interface Judgement {
  /** The pauses known when the judgement began, for the deadlines' queries. */
  allowance: RecentPause[];
  /** Throws PauseOvertook if a pause fell since the allowance was taken. */
  confirm(): void;
}

/**
 * The allowance for deadlines the database judges, and the check that keeps it honest. A judge
 * takes the pauses known now and then waits on a query; a pause that falls in that wait (before
 * the query goes out, or before its answer is read) is not in the allowance, while the database's
 * now() ran on through it. So a session idle for a second before a SIGSTOP was ended as idle for
 * eight when the gateway woke (a full test run, 2026-12-06). The judge calls confirm() after the
 * query and before it commits: a transaction that throws rolls back, and the next pass judges
 * again with the pause known.
 */
export function judgement(clock: PauseClock, windowMs: number, now: () => number = Date.now): Judgement {
  const allowance = clock.pausesEndedAfter(now() - windowMs);
  // Taken after the allowance: a pause noticed while it was taken is in it, one noticed later ends after this.
  const takenAt = now();
  return {
    allowance,
    confirm: () => {
      const paused = clock.pausedSince(takenAt);
      if (paused > 0) throw new PauseOvertook(paused);
    },
  };
}
