// Where simfleet's own files are, whether it runs from source (server/) or compiled (dist/server/).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'simfleet') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the simfleet package root');
    dir = parent;
  }
}

export const packageRoot = findPackageRoot();
export const migrationsDir = join(packageRoot, 'migrations');
export const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
