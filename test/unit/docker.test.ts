// The container files, checked with what runs here: no Docker engine runs on these machines, so the
// images are never built in this suite (docker/README.md says so). What can be checked is checked:
// the Dockerfiles parse and lint clean, everything they copy from the repository exists, their
// entry points are files the build produces, and the compose file wires services and settings
// that exist.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const DOCKERFILES = ['docker/gateway.Dockerfile', 'docker/worker.Dockerfile'];

/** Every SIMFLEET_ setting some module of the gateway, worker or CLI reads. */
function knownSettings(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) for (const m of read(p).matchAll(/SIMFLEET_[A-Z0-9_]+/g)) names.add(m[0]);
    }
  };
  walk('server');
  walk('workers');
  return names;
}

/** Instructions with their arguments, continuation lines joined. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => ({ op: l.split(/\s+/)[0]!.toUpperCase(), args: l.slice(l.indexOf(' ') + 1).trim() }));
}

describe('Dockerfiles', () => {
  for (const file of DOCKERFILES) {
    it(`${file} lints clean`, () => {
      expect(validate(read(file)).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    });

    it(`${file} copies only what the repository has, and runs what the build produces`, () => {
      const ops = instructions(read(file));
      for (const { args } of ops.filter((o) => o.op === 'COPY' && !o.args.startsWith('--from'))) {
        const sources = args.split(/\s+/).slice(0, -1);
        for (const s of sources) expect(existsSync(join(ROOT, s)), `${file} copies ${s}`).toBe(true);
      }
      const entry = JSON.parse(ops.find((o) => o.op === 'ENTRYPOINT')!.args) as string[];
      // dist/ is built by `npm test`'s pretest step, from the same tsconfig the image builds with.
      expect(existsSync(join(ROOT, entry[1]!)), `entry point ${entry[1]}`).toBe(true);
      const known = knownSettings();
      for (const env of ops.filter((o) => o.op === 'ENV')) {
        for (const name of env.args.match(/SIMFLEET_[A-Z0-9_]+/g) ?? []) expect(known.has(name), `${file} sets ${name}, which nothing reads`).toBe(true);
      }
    });
  }

  it('the worker image carries what a Linux host needs: Chromium, adb and the OCR engine', () => {
    const run = instructions(read('docker/worker.Dockerfile'))
      .filter((o) => o.op === 'RUN')
      .map((o) => o.args)
      .join(' ');
    for (const pkg of ['chromium', 'adb', 'tesseract-ocr', 'tesseract-ocr-eng']) expect(run.split(/\s+/)).toContain(pkg);
  });

  it('the worker image runs on jemalloc, preloading the library it installs and links', () => {
    const ops = instructions(read('docker/worker.Dockerfile'));
    const run = ops
      .filter((o) => o.op === 'RUN')
      .map((o) => o.args)
      .join(' ');
    expect(run.split(/\s+/)).toContain('libjemalloc2');
    const preload = ops
      .filter((o) => o.op === 'ENV')
      .map((o) => /LD_PRELOAD=(\S+)/.exec(o.args)?.[1])
      .find(Boolean);
    expect(preload).toBe('/usr/local/lib/libjemalloc.so.2');
    expect(run).toContain(`/usr/local/lib/libjemalloc.so.2`); // the link the preload names is made
  });

  it('a .dockerignore keeps node_modules, dist and .git out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const p of ['node_modules', 'dist', '.git']) expect(ignored).toContain(p);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('docker/compose.yaml')) as {
    services: Record<
      string,
      { build?: { context: string; dockerfile: string }; environment?: Record<string, string>; depends_on?: Record<string, unknown>; command?: string[] }
    >;
  };

  it('runs Postgres, a gateway and a worker, built from files that exist', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'gateway', 'worker']));
    for (const [name, svc] of Object.entries(compose.services)) {
      if (!svc.build) continue;
      expect(existsSync(join(ROOT, 'docker', svc.build.context, svc.build.dockerfile)), `${name} builds from ${svc.build.dockerfile}`).toBe(true);
      for (const dep of Object.keys(svc.depends_on ?? {})) expect(compose.services[dep], `${name} depends on ${dep}`).toBeDefined();
    }
  });

  it('sets only settings simfleet reads, and the gateway reaches the compose Postgres', () => {
    const known = knownSettings();
    for (const [name, svc] of Object.entries(compose.services)) {
      const text = JSON.stringify([svc.environment ?? {}, svc.command ?? []]);
      for (const setting of text.match(/SIMFLEET_[A-Z0-9_]+/g) ?? []) expect(known.has(setting), `${name} uses ${setting}`).toBe(true);
    }
    const url = new URL(compose.services.gateway!.environment!.DATABASE_URL!);
    expect(url.hostname).toBe('postgres');
    expect(url.pathname.slice(1)).toBe((compose.services.postgres!.environment as Record<string, string>).POSTGRES_DB);
  });
});
