// Where the worker's own files are, whether it runs from source or from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'simfleet') return dir;
    if (dirname(dir) === dir) throw new Error('cannot find the simfleet package root');
  }
}

export const sampleAppDir = join(packageRoot(), 'workers', 'sample-app');
