// `simfleet doctor` on this machine (Linux, Chromium and Tesseract installed, no adb, emulator,
// Xcode, AXe or idb): it says the truth about the host, in text and as the contract's
// HostDoctorReport, and exits non-zero only when something a configured backend needs is lacking.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaValidator, type Schemas } from '../../openapi/contract.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { CLI, killAll, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

const run = promisify(execFile);
type Report = Schemas['HostDoctorReport'];
const validReport = schemaValidator<Report>('HostDoctorReport');

async function doctor(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sf-doctor-'));
  return run(process.execPath, [CLI, 'doctor', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SIMFLEET_DATA_DIR: dataDir, ...env },
    timeout: 120_000,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

const check = (r: Report, id: string) => r.checks.find((c) => c.id === id)!;

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('simfleet doctor on this machine, with the default settings (one web device)', () => {
  let report: Report;
  let code: number;
  beforeAll(async () => {
    const out = await doctor(['--json']);
    code = out.code;
    report = JSON.parse(out.stdout) as Report;
  }, 150_000);

  it('prints a HostDoctorReport and exits 0: the web backend has what it needs', () => {
    expect(validReport(report), JSON.stringify(validReport.errors)).toBe(true);
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
    expect(report.backends.filter((b) => b.configured).map((b) => b.backend)).toEqual(['web']);
  });

  it('finds Chromium with the version it prints, and Tesseract with its English data', () => {
    const printed = /(\d+\.\d+\.\d+\.\d+)/.exec(
      execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    )?.[1];
    expect(check(report, 'chromium')).toMatchObject({ status: 'ok', needed: true, version: printed });
    const tesseract = execFileSync('tesseract', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.split(' ')[1];
    expect(check(report, 'tesseract')).toMatchObject({ status: 'ok', needed: true, version: tesseract, detail: expect.stringMatching(/languages: .*\beng\b/) });
  });

  it('reports the iOS and Android tools missing, with the command that installs each, and not needed here', () => {
    for (const [id, fix] of [
      ['xcrun-simctl', /xcode-select -s/],
      ['axe', /^brew install cameroncooke\/axe\/axe$/],
      ['idb', /^pip3 install fb-idb$/],
      ['idb-companion', /^brew install facebook\/fb\/idb-companion$/],
      ['adb', /^sudo apt-get install -y adb$/],
    ] as const) {
      expect(check(report, id), id).toMatchObject({ status: 'missing', needed: false, fix: expect.stringMatching(fix) });
    }
  });

  it('says whether the browser sandbox can run, and skips the farm checks nothing configured', () => {
    expect(['ok', 'broken', 'skipped']).toContain(check(report, 'browser-sandbox').status);
    for (const id of ['gateway', 'clock', 'postgres']) expect(check(report, id), id).toMatchObject({ status: 'skipped', needed: false });
  });

  it('prints the same in text: ok with versions, missing with fix lines, and why it exits 0', async () => {
    const { code, stdout } = await doctor([]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}web: on \(SIMFLEET_WEB_DEVICES=iphone-15\)$/m);
    expect(stdout).toMatch(/^ {2}ok {7}Chromium \(the web device\) \d+\.\d+/m);
    expect(stdout).toMatch(/^ {2}missing {2}AXe \(iOS tree and touch\): axe is not on the PATH.*\n {11}fix: brew install cameroncooke\/axe\/axe$/m);
    expect(stdout).toMatch(/^nothing a configured backend needs is lacking \(exit 0\)/m);
  }, 150_000);
});

describe('simfleet doctor when a configured backend or service lacks something', () => {
  let db: TestDatabase;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    db = await createTestDatabase();
    gateway = await startGatewayProcess({ DATABASE_URL: db.url });
  }, 120_000);
  afterAll(async () => {
    await killAll();
    await db?.drop();
  });

  it('exits 1 when adb is configured at a path that is not there, naming it in upper case', async () => {
    const { code, stdout } = await doctor(['--web-devices', 'none', '--adb', '/nonexistent/adb']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ {2}MISSING {2}adb \(Android platform-tools\): .*\/nonexistent\/adb/m);
    expect(stdout).toMatch(/^lacking for what is configured: adb, emulator-console-token \(exit 1\)$/m);
  }, 150_000);

  it('checks a configured gateway, the clock against it and Postgres, and fails on a gateway that does not answer', async () => {
    const ok = await doctor(['--json', '--web-devices', 'none', '--gateway', gateway.url], { DATABASE_URL: db.url });
    const report = JSON.parse(ok.stdout) as Report;
    expect(ok.code).toBe(0);
    expect(check(report, 'gateway')).toMatchObject({ status: 'ok', needed: true, version: expect.any(String) });
    expect(check(report, 'clock')).toMatchObject({ status: 'ok', needed: true });
    expect(check(report, 'postgres')).toMatchObject({ status: 'ok', needed: true, version: expect.stringMatching(/^\d+/) });

    const down = await doctor(['--json', '--web-devices', 'none', '--gateway', `http://127.0.0.1:${await closedPort()}`]);
    expect(down.code).toBe(1);
    expect(check(JSON.parse(down.stdout) as Report, 'gateway')).toMatchObject({
      status: 'broken',
      needed: true,
      detail: expect.stringContaining('ECONNREFUSED'),
    });
  }, 150_000);
});
