// The tests' setup step (test/setup/host.ts, run first by `npm test`): on this machine everything
// is there and nothing is installed; where something is missing and it may not install, it says
// what, and the one command that installs it, for people and (--json) for machines.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { installCommand, needs, setup } from '../setup/packages.js';

const run = promisify(execFile);
const SCRIPT = new URL('../setup/host.ts', import.meta.url).pathname;

async function setupCli(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', SCRIPT, '--check', '--json'], { env: { ...process.env, ...env }, timeout: 120_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('the test setup step', () => {
  it('finds Chromium, Tesseract with English data and the Postgres server binaries on this machine', async () => {
    const found = await needs();
    expect(found.map((n) => [n.id, n.ok])).toEqual([
      ['chromium', true],
      ['tesseract', true],
      ['postgres-server', true],
    ]);
    const { code, stdout } = await setupCli({});
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ ok: true, installed: [], missing: [] });
  }, 150_000);

  it('reports what is missing with the command that installs it, and exits 1, when it only checks', async () => {
    const host = {
      platform: 'linux' as const,
      uid: process.getuid?.(),
      env: { ...process.env, SIMFLEET_CHROMIUM: '/nonexistent/chromium', SIMFLEET_TESSERACT: '/nonexistent/tesseract' },
    };
    const lines: string[] = [];
    const report = await setup({ check: true }, host, (t) => void lines.push(t));
    expect(report.ok).toBe(false);
    expect(report.installed).toEqual([]);
    expect(report.missing).toEqual([
      { id: 'chromium', detail: expect.stringContaining('/nonexistent/chromium'), install: 'sudo apt-get install -y chromium' },
      { id: 'tesseract', detail: expect.stringContaining('/nonexistent/tesseract'), install: 'sudo apt-get install -y tesseract-ocr tesseract-ocr-eng' },
    ]);
    expect(lines.join('')).toContain('still missing chromium, tesseract; install with:\n  sudo apt-get install -y chromium tesseract-ocr tesseract-ocr-eng\n');

    const cli = await setupCli({ SIMFLEET_CHROMIUM: '/nonexistent/chromium' });
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout)).toMatchObject({ ok: false, missing: [{ id: 'chromium', install: 'sudo apt-get install -y chromium' }] });
  }, 150_000);

  it('installs with Homebrew on macOS, formulae and casks apart', () => {
    const need = (id: 'chromium' | 'tesseract' | 'postgres-server', brew: string[]) => ({ id, ok: false, detail: '', apt: [], brew });
    expect(
      installCommand([need('tesseract', ['tesseract']), need('postgres-server', ['postgresql@17']), need('chromium', ['--cask', 'google-chrome'])], 'darwin'),
    ).toBe('brew install tesseract postgresql@17 && brew install --cask google-chrome');
  });
});
