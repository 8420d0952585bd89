// A deadline judged by a gateway that may have been paused (a long GC, CPU starvation, SIGSTOP):
// whatever would have kept the clock from running out (a client's request, a worker's heartbeat, a
// prepare's answer) may be waiting unread in its sockets, and its timers run before it reads them.
// So a clock is allowed the part of each of this gateway's pauses that fell after it started: the
// time it ran while nobody was listening. A clock started after the last pause gets nothing.

/** This gateway's recent pauses, each with how long ago it ended (relative: the clocks need not agree). */
export type PauseAllowance = readonly { ms: number; endedAgoMs: number }[];

/**
 * SQL for "`start` + `timeout` has passed", with the allowance above. `ms` and `ago` are the
 * placeholders of two float8 arrays, the pauses' lengths and how long ago each ended (empty arrays
 * when there was no pause: the plain test).
 */
export function deadlinePassed(start: string, timeout: string, ms: string, ago: string): string {
  const ended = `(now() - p.ago * interval '1 millisecond')`;
  const allowed = `(SELECT COALESCE(SUM(LEAST(p.ms * interval '1 millisecond', ${ended} - ${start})), interval '0')
                      FROM unnest(${ms}::float8[], ${ago}::float8[]) AS p(ms, ago) WHERE ${ended} > ${start})`;
  return `(${start} + ${timeout} <= now() AND ${start} + ${timeout} + ${allowed} <= now())`;
}

/** The allowance's two parameters, in the order deadlinePassed's placeholders take them. */
export const allowanceParams = (p: PauseAllowance | undefined): [number[], number[]] => [(p ?? []).map((x) => x.ms), (p ?? []).map((x) => x.endedAgoMs)];
