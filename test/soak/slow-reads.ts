// Screen reads the worker logged as slow (a read past SLOW_READ_MS logs where its time went), summed
// up for the soak's report: a run that gets timeouts on screen reads shows which phase ran long. And
// the reads it logged as short of time, by cause: reads_cut_short in /metrics is one number, and what
// to do about it depends on which part ran out (the tree, the capture or the recognition).

export interface SlowReads {
  count: number;
  /** The slowest reads, each with its phases (ms): idle, memory, tree, probe, pixels, capture. */
  slowest: { ms: number; joined: boolean; phases: Record<string, number> }[];
  /** Per phase, the median and the maximum over the slow reads (ms). */
  phases: Record<string, { p50: number; max: number }>;
}

export function slowReads(logs: readonly Record<string, unknown>[]): SlowReads {
  const slow = logs
    .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('a screen read took longer than'))
    .map((l) => ({ ms: Number(l.ms), joined: l.joined === true, phases: (l.phases ?? {}) as Record<string, number> }));
  const names = [...new Set(slow.flatMap((s) => Object.keys(s.phases)))];
  const phases = Object.fromEntries(
    names.map((n) => {
      const xs = slow
        .map((s) => s.phases[n])
        .filter((x): x is number => typeof x === 'number')
        .sort((a, b) => a - b);
      return [n, { p50: xs[Math.floor((xs.length - 1) / 2)] ?? 0, max: xs.at(-1) ?? 0 }];
    }),
  );
  return { count: slow.length, slowest: [...slow].sort((a, b) => b.ms - a.ms).slice(0, 5), phases };
}

export function slowReadsMarkdown(s: SlowReads): string {
  if (!s.count) return 'Screen reads slower than 5 s on the worker: none.';
  return [
    `Screen reads slower than 5 s on the worker: ${s.count}. Where their time went (ms; idle: waiting for perception to take in the frames already received; capture: part of pixels):`,
    '',
    '| phase | median | max |',
    '|---|---|---|',
    ...Object.entries(s.phases).map(([k, v]) => `| ${k} | ${v.p50} | ${v.max} |`),
    '',
    `Slowest: ${s.slowest
      .map(
        (r) =>
          `${r.ms} ms${r.joined ? ' (joined a read under way)' : ''} = ${Object.entries(r.phases)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
      )
      .join('; ')}`,
  ].join('\n');
}

/** Why reads answered without all their text, or not at all, as the worker logged each. */
export const SHORT_CAUSES = {
  treeUsedTheTime: 'no time left for text recognition',
  captureLate: "the screen was not captured within the read's time",
  recognitionStopped: 'text recognition stopped at its budget',
  probingStopped: "hit-test probing stopped at the read's time",
  overdue: 'a screen read was not done in time',
} as const;

export type ShortReads = Record<keyof typeof SHORT_CAUSES, number>;

export function shortReads(logs: readonly Record<string, unknown>[]): ShortReads {
  const counts = Object.fromEntries(Object.keys(SHORT_CAUSES).map((k) => [k, 0])) as ShortReads;
  for (const l of logs) {
    if (typeof l.msg !== 'string') continue;
    for (const [cause, prefix] of Object.entries(SHORT_CAUSES)) if (l.msg.startsWith(prefix)) counts[cause as keyof ShortReads]++;
  }
  return counts;
}

export function shortReadsMarkdown(s: ShortReads): string {
  return `Reads short of time, by cause (the worker's log): the tree left the pixel tier too little time ${s.treeUsedTheTime}; the capture came too late ${s.captureLate}; recognition stopped at its budget ${s.recognitionStopped}; hit-test probing stopped at the read's time ${s.probingStopped}; not done in 9 s, answered HOST_OVERLOADED ${s.overdue}.`;
}
