// The import rules of .dependency-cruiser.cjs hold for the product code, and each rule fires on a
// scratch tree built to break it (a check that cannot fail checks nothing).
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

async function cruise(cwd: string): Promise<Violation[]> {
  const { stdout } = await run(depcruise, ['server', 'workers', 'openapi', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }), // exits non-zero when it finds violations
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** One file per rule, each breaking exactly the rule it is named after. */
const BREAKERS: Record<string, Record<string, string>> = {
  'contract-stands-alone': { 'openapi/leak.ts': "import { x } from '../server/thing.js';\nexport const y = x;\n" },
  'gateway-not-into-workers': { 'server/http/peek.ts': "import { d } from '../../workers/devices/inventory.js';\nexport const y = d;\n" },
  'cli-uses-worker-entry-only': { 'server/cli/deep.ts': "import { c } from '../../workers/connection/link.js';\nexport const y = c;\n" },
  'workers-not-into-gateway': { 'workers/connection/link.ts': "import { x } from '../../server/thing.js';\nexport const c = x;\n" },
  'only-postgres-module-imports-pg': { 'server/http/raw-sql.ts': "import pg from 'pg';\nexport const p = pg;\n" },
  'only-embedded-module-imports-pglite': { 'server/hub/lite.ts': "import { PGlite } from '@electric-sql/pglite';\nexport const l = PGlite;\n" },
  'workers-hold-no-database': { 'workers/devices/inventory.ts': "import pg from 'pg';\nexport const d = pg;\n" },
  'domain-knows-no-http': { 'server/domain/webby.ts': "import Fastify from 'fastify';\nexport const f = Fastify;\n" },
  'engines-behind-the-database-interface': { 'server/http/engine.ts': "import { e } from '../db/postgres.js';\nexport const y = e;\n", 'server/db/postgres.ts': 'export const e = 1;\n' },
  'backends-only-through-registry': { 'workers/host/sneak.ts': "import { f } from '../devices/fake/provider.js';\nexport const y = f;\n", 'workers/devices/fake/provider.ts': 'export const f = 1;\n' },
  'only-web-backend-drives-chromium': { 'workers/host/browser.ts': "import { chromium } from 'playwright-core';\nexport const c = chromium;\n" },
  'only-image-module-touches-pixels': { 'workers/perception/pixels.ts': "import sharp from 'sharp';\nexport const s = sharp;\n" },
  'no-circular': { 'server/a.ts': "import { b } from './b.js';\nexport const a = b;\n", 'server/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n" },
  'no-test-code-in-product': { 'server/uses-test.ts': "import { h } from '../test/helper.js';\nexport const y = h;\n", 'test/helper.ts': 'export const h = 1;\n' },
};

describe('import rules', () => {
  it('hold for server/, workers/ and openapi/', async () => {
    const violations = await cruise(root);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('each fire on code written to break them', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'sf-imports-'));
    await cp(join(root, '.dependency-cruiser.cjs'), join(scratch, '.dependency-cruiser.cjs'));
    await writeFile(join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }));
    await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', type: 'module' }));
    await symlink(join(root, 'node_modules'), join(scratch, 'node_modules'));
    await mkdir(join(scratch, 'server'), { recursive: true });
    await writeFile(join(scratch, 'server/thing.ts'), 'export const x = 1;\n');
    for (const files of Object.values(BREAKERS)) {
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(scratch, path)), { recursive: true });
        await writeFile(join(scratch, path), text);
      }
    }
    const fired = new Set((await cruise(scratch)).map((v) => v.rule.name));
    for (const rule of Object.keys(BREAKERS)) expect(fired, `rule ${rule} did not fire`).toContain(rule);
    // and every rule in the config has a breaker here
    const { forbidden } = (await import(join(root, '.dependency-cruiser.cjs'))).default as { forbidden: { name: string }[] };
    expect(forbidden.map((r) => r.name).sort()).toEqual(Object.keys(BREAKERS).sort());
  });
});
