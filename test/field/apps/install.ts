// Installs every package of the field manifest, each at its exact version, into a cache outside
// git (default `.field-cache/` at the repository root, or FIELD_CACHE): `npm pack name@version`,
// then the tarball unpacked into `<cache>/<name>@<version>/`. A package already there (its
// `.field-installed` stamp present) is skipped. Run: `node --import tsx test/field/apps/install.ts`.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadManifest, manifestPackages, splitSpec } from './manifest.js';

const run = promisify(execFile);
const STAMP = '.field-installed';

export const DEFAULT_CACHE = resolve(fileURLToPath(new URL('../../../.field-cache/', import.meta.url)));

export function cacheDir(): string {
  return process.env.FIELD_CACHE ? resolve(process.env.FIELD_CACHE) : DEFAULT_CACHE;
}

/** Where a package lives in the cache. */
export function packageDir(spec: string, cache = cacheDir()): string {
  return join(cache, spec);
}

export function isInstalled(spec: string, cache = cacheDir()): boolean {
  return existsSync(join(packageDir(spec, cache), STAMP));
}

/** Installs one package (exact version); throws an error that names it when the registry or the tarball fails. */
export async function installPackage(spec: string, cache = cacheDir()): Promise<'installed' | 'present'> {
  if (isInstalled(spec, cache)) return 'present';
  const [name, version] = splitSpec(spec);
  const work = mkdtempSync(join(tmpdir(), 'field-pack-'));
  try {
    let packed: { filename: string; name: string; version: string; integrity: string }[];
    try {
      const { stdout } = await run('npm', ['pack', spec, '--json', '--pack-destination', work], { maxBuffer: 64 << 20 });
      packed = JSON.parse(stdout);
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`could not fetch ${spec} from the npm registry: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`);
    }
    const got = packed[0];
    if (!got || got.name !== name || got.version !== version) {
      throw new Error(`npm pack ${spec} gave ${got ? `${got.name}@${got.version}` : 'nothing'}, not the pinned version`);
    }
    const out = join(work, 'out');
    mkdirSync(out);
    try {
      await run('tar', ['-xzf', join(work, got.filename), '-C', out, '--no-same-owner']);
    } catch (err) {
      throw new Error(`could not unpack ${spec}: ${(err as Error).message}`);
    }
    // npm tarballs hold one top folder, usually `package/` (a few old ones name it otherwise).
    const top = readdirSync(out);
    const root = top.length === 1 ? join(out, top[0]!) : out;
    writeFileSync(join(root, STAMP), `${JSON.stringify({ spec, integrity: got.integrity, at: new Date().toISOString() })}\n`);
    const dest = packageDir(spec, cache);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dirname(dest), { recursive: true });
    renameSync(root, dest);
    return 'installed';
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Installs every manifest package; returns what each one was. */
export async function installAll(cache = cacheDir(), log: (line: string) => void = () => {}): Promise<Record<string, 'installed' | 'present'>> {
  mkdirSync(cache, { recursive: true });
  const result: Record<string, 'installed' | 'present'> = {};
  for (const spec of manifestPackages(loadManifest())) {
    result[spec] = await installPackage(spec, cache);
    log(`${result[spec].padEnd(9)} ${spec}`);
  }
  return result;
}

/** The stamp of an installed package (its integrity as the registry gave it). */
export function installedStamp(spec: string, cache = cacheDir()): { spec: string; integrity: string } | undefined {
  const file = join(packageDir(spec, cache), STAMP);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cache = cacheDir();
  console.log(`field cache: ${cache}`);
  installAll(cache, console.log).catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
