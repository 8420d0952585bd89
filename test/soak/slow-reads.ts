// Screen reads the worker logged as slow (a read past SLOW_READ_MS logs where its time went), summed
// up for the soak's report: a run that gets timeouts on screen reads shows which phase ran long.

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
      const xs = slow.map((s) => s.phases[n]).filter((x): x is number => typeof x === 'number').sort((a, b) => a - b);
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
    `Slowest: ${s.slowest.map((r) => `${r.ms} ms${r.joined ? ' (joined a read under way)' : ''} = ${Object.entries(r.phases).map(([k, v]) => `${k} ${v}`).join(', ')}`).join('; ')}`,
  ].join('\n');
}
