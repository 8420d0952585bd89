// `simfleet doctor [--json]`: what this host has and lacks for each backend, the same checks its
// worker runs at start, plus the farm's: the gateway (and the clock against it) and Postgres when
// they are configured. Exit 0 when everything a configured backend (or a configured gateway or
// database) needs is there, 1 when something is lacking, 2 for bad usage.
import { pino } from 'pino';
import type { Schemas } from '../../openapi/contract.js';
import { checkHost, type HostCheck, lacking, loadWorkerConfig } from '../../workers/index.js';

type Report = Schemas['HostDoctorReport'];

export interface DoctorOptions {
  json: boolean;
  out: (text: string) => void;
  /** Overrides how the host itself is checked (tests). */
  checkHost?: typeof checkHost;
}

/** Worst clock difference from the gateway that still counts as agreeing (its Date header has whole seconds). */
const CLOCK_SKEW_MS = 5000;

export async function runDoctor(env: NodeJS.ProcessEnv, flags: Record<string, string | undefined>, opts: DoctorOptions): Promise<number> {
  const config = loadWorkerConfig(env, flags);
  const gatewayUrl = config.gatewayUrl ?? env.SIMFLEET_URL;
  const [host, farm, postgres] = await Promise.all([
    (opts.checkHost ?? checkHost)(config),
    gatewayChecks(gatewayUrl),
    postgresCheck(env.DATABASE_URL, config.dataDir),
  ]);
  const checks = [...host.checks, ...farm, postgres];
  const report: Report = { ok: lacking(checks).length === 0, checkedAt: new Date().toISOString(), host: host.host, backends: host.backends, checks };
  opts.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  return report.ok ? 0 : 1;
}

const AREAS: { area: HostCheck['area']; title: string }[] = [
  { area: 'web', title: 'web (Chromium)' },
  { area: 'android', title: 'android (emulators through adb)' },
  { area: 'ios', title: 'ios (simulators through Xcode)' },
  { area: 'host', title: 'every backend' },
  { area: 'farm', title: 'the farm' },
];

export function render(r: Report): string {
  const lines = [`simfleet doctor: ${r.host.os} ${r.host.arch}${r.host.root ? ', as root' : ''}`];
  for (const b of r.backends) lines.push(`  ${b.backend}: ${b.configured ? 'on' : 'off'} (${b.why})`);
  for (const { area, title } of AREAS) {
    const mine = r.checks.filter((c) => c.area === area);
    if (!mine.length) continue;
    lines.push('', title);
    for (const c of mine) {
      const mark =
        c.status === 'ok'
          ? 'ok     '
          : c.status === 'skipped'
            ? 'skipped'
            : c.needed
              ? `${c.status.toUpperCase()}${' '.repeat(7 - c.status.length)}`
              : c.status.padEnd(7);
      lines.push(`  ${mark}  ${c.title}${c.version ? ` ${c.version}` : ''}: ${c.detail}`);
      if (c.fix && c.status !== 'ok') lines.push(`           fix: ${c.fix}`);
    }
  }
  const lack = lacking(r.checks);
  lines.push(
    '',
    lack.length
      ? `lacking for what is configured: ${lack.map((c) => c.id).join(', ')} (exit 1)`
      : 'nothing a configured backend needs is lacking (exit 0); lowercase missing/broken lines belong to backends this host does not run',
  );
  return `${lines.join('\n')}\n`;
}

async function gatewayChecks(url: string | undefined): Promise<HostCheck[]> {
  const gateway = { id: 'gateway', title: 'the gateway', area: 'farm' } as const;
  const clock = { id: 'clock', title: "this host's clock against the gateway's", area: 'farm' } as const;
  if (!url) {
    const detail = 'no gateway configured (--gateway or SIMFLEET_GATEWAY_URL, or SIMFLEET_URL)';
    return [
      { ...gateway, needed: false, status: 'skipped', detail },
      { ...clock, needed: false, status: 'skipped', detail },
    ];
  }
  const http = url.replace(/^ws(s?):/, 'http$1:').replace(/\/+$/, '');
  const sent = Date.now();
  let res: Response;
  try {
    res = await fetch(`${http}/healthz`, { signal: AbortSignal.timeout(5000) });
  } catch (err) {
    const cause = ((err as Error).cause as { code?: string } | undefined)?.code ?? (err as Error).message;
    const detail = `${http}/healthz did not answer (${cause})`;
    return [
      { ...gateway, needed: true, status: 'broken', detail, fix: 'start the gateway (`simfleet gateway`), or fix --gateway / SIMFLEET_GATEWAY_URL' },
      { ...clock, needed: false, status: 'skipped', detail: 'could not tell: the gateway did not answer' },
    ];
  }
  const received = Date.now();
  const health = (await res.json().catch(() => ({}))) as Partial<Schemas['Health']>;
  const gw: HostCheck = res.ok
    ? {
        ...gateway,
        needed: true,
        status: 'ok',
        detail: `${http} answers (simfleet ${health.version ?? 'version not said'})`,
        ...(health.version ? { version: health.version } : {}),
      }
    : { ...gateway, needed: true, status: 'broken', detail: `${http}/healthz answered ${res.status}`, fix: 'check that the URL is a simfleet gateway' };
  return [gw, clockCheck(res.headers.get('date'), sent, received)];
}

/** The gateway's Date header against the middle of the request (the header drops the milliseconds: ±0.5 s). */
export function clockCheck(dateHeader: string | null, sentMs: number, receivedMs: number): HostCheck {
  const base = { id: 'clock', title: "this host's clock against the gateway's", area: 'farm' } as const;
  const theirs = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  if (Number.isNaN(theirs)) return { ...base, needed: false, status: 'skipped', detail: 'could not tell: the gateway sent no Date header' };
  const skew = (sentMs + receivedMs) / 2 - (theirs + 500);
  const said = `${Math.abs(skew / 1000).toFixed(1)} s ${skew >= 0 ? 'ahead of' : 'behind'} the gateway (±${((receivedMs - sentMs) / 2000 + 0.5).toFixed(1)} s)`;
  if (Math.abs(skew) <= CLOCK_SKEW_MS) return { ...base, needed: true, status: 'ok', detail: said };
  return {
    ...base,
    needed: true,
    status: 'broken',
    detail: `${said}: timestamps this host reports (heartbeats, events) do not line up with the farm's`,
    fix: process.platform === 'darwin' ? 'sudo sntp -sS time.apple.com' : 'sudo timedatectl set-ntp true',
  };
}

async function postgresCheck(url: string | undefined, dataDir: string): Promise<HostCheck> {
  const base = { id: 'postgres', title: 'Postgres (DATABASE_URL)', area: 'farm' } as const;
  if (!url)
    return { ...base, needed: false, status: 'skipped', detail: 'DATABASE_URL is not set: `simfleet start` uses the embedded Postgres under the data dir' };
  const { openDatabase } = await import('../db/open.js');
  const db = await openDatabase({ databaseUrl: url, dataDir, dbPoolSize: 1 }, pino({ level: 'silent' }));
  const shown = redact(url);
  try {
    const { rows } = await db.query<{ v: string }>('SELECT version() AS v');
    const v = rows[0]?.v ?? '';
    return {
      ...base,
      needed: true,
      status: 'ok',
      detail: `${shown}: ${v.split(',')[0]}`,
      ...(/PostgreSQL (\S+)/.exec(v)?.[1] ? { version: /PostgreSQL (\S+)/.exec(v)![1]! } : {}),
    };
  } catch (err) {
    return {
      ...base,
      needed: true,
      status: 'broken',
      detail: `${shown} cannot be reached: ${(err as Error).message}`,
      fix: 'start Postgres, or fix DATABASE_URL',
    };
  } finally {
    await db.close().catch(() => undefined);
  }
}

/** A database URL without its password (the engine module is behind the database interface: not imported here). */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(DATABASE_URL, not a URL)';
  }
}
