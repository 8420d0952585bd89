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

interface Cruise {
  violations: Violation[];
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

async function cruiseAll(cwd: string): Promise<Cruise> {
  const { stdout } = await run(depcruise, ['server', 'workers', 'openapi', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch(
    (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }), // exits non-zero when it finds violations
  );
  const out = JSON.parse(stdout) as { modules: Cruise['modules']; summary: { violations: Violation[] } };
  return { violations: out.summary.violations, modules: out.modules };
}

async function cruise(cwd: string): Promise<Violation[]> {
  return (await cruiseAll(cwd)).violations;
}

/** One file per rule, each breaking exactly the rule it is named after. */
const BREAKERS: Record<string, Record<string, string>> = {
  'contract-stands-alone': { 'openapi/leak.ts': "import { x } from '../server/thing.js';\nexport const y = x;\n" },
  'gateway-not-into-workers': { 'server/http/peek.ts': "import { d } from '../../workers/devices/inventory.js';\nexport const y = d;\n" },
  'cli-uses-worker-entry-only': { 'server/cli/deep.ts': "import { c } from '../../workers/connection/link.js';\nexport const y = c;\n" },
  'workers-not-into-gateway': { 'workers/connection/link.ts': "import { x } from '../../server/thing.js';\nexport const c = x;\n" },
  'only-postgres-module-imports-pg': {
    'server/http/raw-sql.ts': "import pg from 'pg';\nexport const p = pg;\n",
    // a type-only import resolves to @types/pg, which the rule must count as pg
    'server/http/raw-types.ts': "import type pg from 'pg';\nexport type C = pg.Client;\n",
  },
  'only-embedded-module-imports-pglite': { 'server/hub/lite.ts': "import { PGlite } from '@electric-sql/pglite';\nexport const l = PGlite;\n" },
  'workers-hold-no-database': { 'workers/devices/inventory.ts': "import pg from 'pg';\nexport const d = pg;\n" },
  'domain-knows-no-http': { 'server/domain/webby.ts': "import Fastify from 'fastify';\nexport const f = Fastify;\n" },
  'engines-behind-the-database-interface': {
    'server/http/engine.ts': "import { e } from '../db/postgres.js';\nexport const y = e;\n",
    'server/db/postgres.ts': 'export const e = 1;\n',
  },
  'backends-only-through-registry': {
    'workers/host/sneak.ts': "import { f } from '../devices/fake/provider.js';\nexport const y = f;\n",
    'workers/devices/fake/provider.ts': 'export const f = 1;\n',
  },
  'only-web-backend-drives-chromium': { 'workers/host/browser.ts': "import { chromium } from 'playwright-core';\nexport const c = chromium;\n" },
  'only-image-module-touches-pixels': { 'workers/perception/pixels.ts': "import sharp from 'sharp';\nexport const s = sharp;\n" },
  'no-circular': {
    'server/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'server/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
  },
  'no-test-code-in-product': {
    'server/uses-test.ts': "import { h } from '../test/helper.js';\nexport const y = h;\n",
    'test/helper.ts': 'export const h = 1;\n',
  },
};

describe('import rules', () => {
  it('hold for server/, workers/ and openapi/', async () => {
    const { violations, modules } = await cruiseAll(root);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
    // The rules about npm packages can only fire if the cruise sees the edges into them. Excluding
    // node_modules once dropped those edges here, while the scratch tree below (whose node_modules
    // is a symlink, so resolves elsewhere) still fired: the real tree passed blind.
    const edges = new Set(modules.flatMap((m) => m.dependencies.map((d) => `${m.source} → ${d.resolved.split('/').slice(0, 2).join('/')}`)));
    for (const known of [
      'server/db/postgres.ts → node_modules/pg',
      'server/db/embedded.ts → node_modules/@electric-sql',
      'workers/devices/web/provider.ts → node_modules/playwright-core',
      'workers/perception/image.ts → node_modules/sharp',
    ]) {
      expect(edges, `the cruise does not see ${known}`).toContain(known);
    }
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
    const violations = await cruise(scratch);
    const fired = new Set(violations.map((v) => v.rule.name));
    for (const rule of Object.keys(BREAKERS)) expect(fired, `rule ${rule} did not fire`).toContain(rule);
    const pgFrom = violations.filter((v) => v.rule.name === 'only-postgres-module-imports-pg').map((v) => v.from);
    expect(pgFrom).toEqual(expect.arrayContaining(['server/http/raw-sql.ts', 'server/http/raw-types.ts']));
    // and every rule in the config has a breaker here
    const { forbidden } = (await import(join(root, '.dependency-cruiser.cjs'))).default as { forbidden: { name: string }[] };
    expect(forbidden.map((r) => r.name).sort()).toEqual(Object.keys(BREAKERS).sort());
  });
});
