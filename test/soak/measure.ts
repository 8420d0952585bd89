// Reading a soak's processes from /proc: resident and proportional memory, descriptors, and
// Chromium's processes under a worker by kind (browser, renderer, gpu-process...).
import { readFileSync, readdirSync } from 'node:fs';
import { descendantsOf } from '../helpers/proc.js';

export const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
// Proportional set size: a page shared by n processes counts 1/n in each. Summing RSS over Chromium's
// forty-odd processes counted its shared libraries forty times (6.9 GB summed RSS against 1.8 GB
// PSS, read at the same moment of a soak of 20 devices).
const pssMB = (pid: number) => Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
export const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Chromium's processes under a worker (the browser and its renderers). */
export function chromiumUnder(root: number): number[] {
  return descendantsOf(root)
    .filter((p) => /chrom/i.test(p.comm))
    .map((p) => p.pid);
}

/** Chromium's PSS under a worker, summed over its processes (one gone while read counts 0). */
export function chromiumPssMB(workerPid: number): number {
  return Object.values(chromiumPssByKind(workerPid)).reduce((a, b) => a + b, 0);
}

/**
 * The same by kind of process (browser, renderer, gpu-process, utility, zygote...), from each one's
 * --type switch: which part of Chromium holds what grew.
 */
export function chromiumPssByKind(workerPid: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const pid of chromiumUnder(workerPid)) {
    try {
      const kind = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
      byKind[kind] = (byKind[kind] ?? 0) + pssMB(pid);
    } catch {
      // gone while we looked
    }
  }
  return byKind;
}

export const roundAll = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]));
