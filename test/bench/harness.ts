// The benchmark harness: suites return figures measured over repeated runs; the harness writes
// bench/results/latest.json and latest.md (figure, unit, median, p95, runs, machine, date).
// Benchmarks never run inside `npm test`; timing claims live here, not in tests.
import { cpus, totalmem } from 'node:os';

export interface Figure {
  suite: string;
  figure: string;
  unit: string;
  median: number;
  p95: number;
  runs: number;
  /** What the issue or README promises, in words, when there is a goal. */
  goal?: string;
  note?: string;
  /** Why there is no figure: set instead of numbers when a suite could not measure it here. */
  unmeasured?: string;
}

export interface Suite {
  name: string;
  describe: string;
  run(): Promise<Figure[]>;
}

export function summarise(suite: string, figure: string, unit: string, samples: number[], extra: Pick<Figure, 'goal' | 'note'> = {}): Figure {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const round = (x: number) => Math.round(x * 100) / 100;
  return { suite, figure, unit, median: round(at(0.5)), p95: round(at(0.95)), runs: samples.length, ...extra };
}

/** A figure this machine could not give, and why: printed as such, never as a zero. */
export function unmeasured(suite: string, figure: string, unit: string, why: string, extra: Pick<Figure, 'goal' | 'note'> = {}): Figure {
  return { suite, figure, unit, median: NaN, p95: NaN, runs: 0, ...extra, unmeasured: why };
}

/** Several samples' ratio a / b by medians, for figures measured side by side in one run. */
export function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function machine(): Record<string, string | number> {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
