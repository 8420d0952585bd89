// What `simfleet start` and `simfleet gateway` print when they serve: where, the admin token, and
// (start) what this machine offers. A backend that cannot run is said here with its fix, because
// a newcomer reads the banner and not the JSON log above it.
import type { InventorySnapshot } from '../../workers/index.js';

export interface BannerFacts {
  version: string;
  url: string;
  database: { kind: string; location: string };
  admin: { file: string; secret?: string; source: 'env' | 'generated' | 'existing' };
  /** `simfleet start` only: the local worker and what it reported. */
  local?: {
    host: { id: string; name: string };
    inventory: InventorySnapshot;
    textRecognition?: { available: boolean; hint?: string };
    /** The host checks in one line (workers' summariseChecks). */
    checks?: string;
  };
}

export function banner(f: BannerFacts): string {
  const lines = [``, `simfleet ${f.version} is serving at ${f.url} (${f.database.kind} database: ${f.database.location})`];
  if (f.admin.secret) {
    lines.push(`  admin token (shown once, also saved to ${f.admin.file}, mode 0600):`, `    ${f.admin.secret}`);
  } else if (f.admin.source === 'env') {
    lines.push('  admin token: the one in SIMFLEET_ADMIN_TOKEN');
  } else {
    lines.push(`  admin token: in ${f.admin.file} (written when this farm first started)`);
  }
  if (f.local) {
    lines.push(`  local host: ${f.local.host.id} (${f.local.host.name})`, ...backendLines(f.local.inventory));
    const ocr = f.local.textRecognition;
    if (ocr && !ocr.available) lines.push('  text recognition: unavailable (outlines use the accessibility tree alone)', ...fix(ocr.hint));
    if (f.local.checks) lines.push(`  host checks: ${f.local.checks}`);
    // The token as this shell can reach it: the variable it came from, or the file this start wrote.
    const token = f.admin.source === 'env' ? '$SIMFLEET_ADMIN_TOKEN' : `$(cat ${f.admin.file})`;
    lines.push(`  try: curl -H "Authorization: Bearer ${token}" ${f.url}/v1/hosts`);
  }
  return `${lines.join('\n')}\n\n`;
}

function backendLines(inv: InventorySnapshot): string[] {
  if (inv.backends.length === 0) return ['  devices: none (no backend is configured on this host)'];
  return inv.backends.flatMap((b) => {
    const mine = inv.devices.filter((d) => d.backend === b.backend);
    if (!b.available) return [`  ${b.backend}: ${b.starting ? 'starting' : 'unavailable'}: ${b.detail ?? 'no detail'}`, ...fix(b.hint)];
    const ready = mine.filter((d) => d.health === 'ready');
    const names = [...new Set(ready.map((d) => d.model))].join(', ');
    const broken = mine.filter((d) => d.health !== 'ready').map((d) => `${d.name}: ${d.reason ?? 'broken'}`);
    return [`  ${b.backend}: ${ready.length} device(s) ready${names ? ` (${names})` : ''}${broken.length ? `; not ready: ${broken.join('; ')}` : ''}`];
  });
}

function fix(hint: string | undefined): string[] {
  return hint ? [`    fix: ${hint}`] : [];
}
