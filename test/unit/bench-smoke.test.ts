// The bench is never run by `npm test` (it takes minutes and its figures are the machine's); this
// only checks that it starts: every suite module loads, and an unknown suite is refused by name.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { unmeasured } from '../bench/harness.js';

const RUN = fileURLToPath(new URL('../bench/run.ts', import.meta.url));

describe('npm run bench', () => {
  it('loads every suite and refuses one it does not have, naming those it has', async () => {
    const err = await promisify(execFile)(process.execPath, ['--import', 'tsx', RUN, 'no-such-suite'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toMatch(/unknown suite\(s\): no-such-suite; have: placement, web, perception, understanding, memory, acting, streams, gateway, peers/);
  }, 60_000);

  it('writes a figure it could not measure as such, with the reason, never as a zero', () => {
    const f = unmeasured('peers', 'characters per observation', 'chars', 'npm could not reach the registry');
    expect(f).toMatchObject({ runs: 0, unmeasured: 'npm could not reach the registry' });
    expect(Number.isNaN(f.median)).toBe(true);
  });
});
