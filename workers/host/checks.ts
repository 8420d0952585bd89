// Everything a worker can use on this host, checked: each backend's tools (devices/registry.ts),
// text recognition, free disk and memory. `simfleet doctor` prints these (with the farm's checks
// added), and the worker runs them at start and sends them in its hello (GET /v1/hosts).
import { statfs } from 'node:fs/promises';
import { arch, freemem, totalmem, type } from 'node:os';
import { dirname } from 'node:path';
import type { WorkerConfig } from '../config.js';
import { backendChecks } from '../devices/registry.js';
import { tesseractCheck } from '../understanding/ocr/check.js';
import { type HostBackendPlan, type HostCheck, type ProbeHost, THIS_HOST } from './probe.js';

export type { HostBackendPlan, HostCheck, ProbeHost } from './probe.js';

const GIB = 1024 ** 3;
/** Below this much free disk where the worker keeps its data, devices fail to write (browser profiles, screenshots, simulator data). */
export const MIN_FREE_DISK_BYTES = 2 * GIB;
/** Below this much available memory a device's browser or simulator cannot start. */
export const MIN_FREE_MEMORY_BYTES = 1 * GIB;

export interface HostChecks {
  host: { os: string; arch: string; root: boolean };
  backends: HostBackendPlan[];
  checks: HostCheck[];
}

export interface HostFacts {
  /** Free bytes for an unprivileged user under a folder; tests give their own. */
  freeDisk(path: string): Promise<number>;
  freeMemory(): number;
  totalMemory(): number;
}

const REAL_FACTS: HostFacts = {
  freeDisk: async (path) => {
    // The data dir may not exist yet: its nearest existing parent is on the same disk.
    for (let at = path; ; at = dirname(at)) {
      try {
        const s = await statfs(at);
        return s.bavail * s.bsize;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw err;
      }
    }
  },
  freeMemory: freemem,
  totalMemory: totalmem,
};

const gib = (bytes: number) => `${(bytes / GIB).toFixed(1)} GiB`;

export async function diskCheck(dataDir: string, facts: HostFacts = REAL_FACTS): Promise<HostCheck> {
  const base = { id: 'disk', title: 'free disk under the data dir', area: 'host', needed: true } as const;
  try {
    const free = await facts.freeDisk(dataDir);
    if (free < MIN_FREE_DISK_BYTES) {
      return {
        ...base,
        status: 'broken',
        detail: `${gib(free)} free under ${dataDir}, below the ${gib(MIN_FREE_DISK_BYTES)} devices need`,
        fix: `free space on the disk that holds ${dataDir}, or move SIMFLEET_DATA_DIR`,
      };
    }
    return { ...base, status: 'ok', detail: `${gib(free)} free under ${dataDir}` };
  } catch (err) {
    return { ...base, needed: false, status: 'skipped', detail: `could not tell: ${(err as Error).message}` };
  }
}

export function memoryCheck(facts: HostFacts = REAL_FACTS): HostCheck {
  const base = { id: 'memory', title: 'available memory', area: 'host', needed: true } as const;
  const free = facts.freeMemory();
  const detail = `${gib(free)} available of ${gib(facts.totalMemory())}`;
  if (free < MIN_FREE_MEMORY_BYTES)
    return {
      ...base,
      status: 'broken',
      detail: `${detail}, below the ${gib(MIN_FREE_MEMORY_BYTES)} a device needs to start`,
      fix: 'stop what else runs on this host, or run fewer devices on it',
    };
  return { ...base, status: 'ok', detail };
}

/** Every check of this host for the worker configured as `config`. Never throws: what cannot be checked is `skipped`. */
export async function checkHost(config: WorkerConfig, host: ProbeHost = THIS_HOST, facts: HostFacts = REAL_FACTS): Promise<HostChecks> {
  const [backends, tesseract, disk] = await Promise.all([
    backendChecks(config, host),
    tesseractCheck(config.tesseract, host),
    diskCheck(config.dataDir, facts),
  ]);
  return {
    host: { os: type(), arch: arch(), root: host.uid === 0 },
    backends: backends.plans,
    checks: [...backends.checks, tesseract, disk, memoryCheck(facts)].map(clip),
  };
}

/** Within the contract's lengths, whatever a tool printed. */
function clip(c: HostCheck): HostCheck {
  const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  return { ...c, detail: cut(c.detail, 1000), ...(c.fix ? { fix: cut(c.fix, 1000) } : {}), ...(c.version ? { version: cut(c.version, 200) } : {}) };
}

/** A needed check that is not ok: the host lacks something a configured backend needs. */
export function lacking(checks: readonly HostCheck[]): HostCheck[] {
  return checks.filter((c) => c.needed && c.status !== 'ok');
}

/** One line for a start banner or a log: how many are fine, and what a configured backend lacks. */
export function summariseChecks(checks: readonly HostCheck[]): string {
  const ok = checks.filter((c) => c.status === 'ok').length;
  const lack = lacking(checks);
  const unused = checks.filter((c) => !c.needed && (c.status === 'missing' || c.status === 'broken')).length;
  const head = `${ok} of ${checks.length} ok`;
  const tail = unused ? `; ${unused} missing for backends this host does not run` : '';
  if (!lack.length) return `${head}, nothing a configured backend needs is lacking${tail}`;
  return `${head}; LACKING ${lack.map((c) => `${c.id} (${c.status})`).join(', ')}${tail}; \`simfleet doctor\` says how to fix them`;
}
