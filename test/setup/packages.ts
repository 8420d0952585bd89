// What the tests need of the machine's system packages, checked with the same checks `simfleet
// doctor` runs, and installed with the machine's package manager when missing (host.ts runs it).
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { THIS_HOST } from '../../workers/host/probe.js';
import { chromiumCheck } from '../../workers/devices/web/checks.js';
import { tesseractCheck } from '../../workers/understanding/ocr/check.js';
import { findPostgresBin } from '../helpers/private-postgres.js';

const run = promisify(execFile);

export interface Need {
  id: 'chromium' | 'tesseract' | 'postgres-server';
  /** Whether it is there, and what was found or why not. */
  ok: boolean;
  detail: string;
  apt: string[];
  brew: string[];
}

export interface SetupReport {
  ok: boolean;
  installed: string[];
  missing: { id: string; detail: string; install: string }[];
}

export async function needs(host = THIS_HOST): Promise<Need[]> {
  const [chromium, tesseract, pgBin] = await Promise.all([
    chromiumCheck(host.env.SIMFLEET_CHROMIUM, true, host),
    tesseractCheck(host.env.SIMFLEET_TESSERACT ?? 'tesseract', host),
    findPostgresBin(host.env.PATH),
  ]);
  return [
    { id: 'chromium', ok: chromium.status === 'ok', detail: chromium.detail, apt: ['chromium'], brew: ['--cask', 'google-chrome'] },
    { id: 'tesseract', ok: tesseract.status === 'ok', detail: tesseract.detail, apt: ['tesseract-ocr', 'tesseract-ocr-eng'], brew: ['tesseract'] },
    {
      id: 'postgres-server',
      ok: pgBin !== undefined,
      detail: pgBin ? `initdb and pg_ctl in ${pgBin}` : 'no initdb and pg_ctl (Debian /usr/lib/postgresql/N/bin, Homebrew postgresql@N, or the PATH)',
      apt: ['postgresql'],
      brew: ['postgresql@17'],
    },
  ];
}

type Installer = { kind: 'apt'; sudo: boolean } | { kind: 'brew' } | { kind: 'none'; why: string };

async function installer(host = THIS_HOST): Promise<Installer> {
  const has = (cmd: string, args: string[]) =>
    run(cmd, args, { timeout: 10_000 }).then(
      () => true,
      () => false,
    );
  if (host.platform === 'darwin')
    return (await has('brew', ['--version'])) ? { kind: 'brew' } : { kind: 'none', why: 'Homebrew (brew) is not installed: https://brew.sh' };
  if (host.platform !== 'linux' || !(await has('apt-get', ['--version'])))
    return { kind: 'none', why: 'no apt-get on this machine: install the packages with its own package manager' };
  if (host.uid === 0) return { kind: 'apt', sudo: false };
  if (await has('sudo', ['-n', 'true'])) return { kind: 'apt', sudo: true };
  return { kind: 'none', why: 'not root, and sudo asks for a password: run the command below once, or npm test as root' };
}

/** The one command that installs what is missing, on this kind of machine. */
export function installCommand(missing: readonly Need[], platform: NodeJS.Platform): string {
  if (platform === 'darwin') {
    const casks = missing.filter((n) => n.brew[0] === '--cask').flatMap((n) => n.brew.slice(1));
    const formulae = missing.filter((n) => n.brew[0] !== '--cask').flatMap((n) => n.brew);
    return [formulae.length ? `brew install ${formulae.join(' ')}` : '', casks.length ? `brew install --cask ${casks.join(' ')}` : '']
      .filter(Boolean)
      .join(' && ');
  }
  return `sudo apt-get install -y ${missing.flatMap((n) => n.apt).join(' ')}`;
}

/** Runs a package manager with its output on our stderr; retried, as mirrors fail now and then. */
async function step(cmd: string, args: string[]): Promise<boolean> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const code = await new Promise<number>((resolve) => {
      const child = spawn(cmd, args, { stdio: ['ignore', process.stderr, process.stderr], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
      child.on('error', () => resolve(127));
      child.on('close', (c) => resolve(c ?? 1));
    });
    if (code === 0) return true;
    process.stderr.write(`attempt ${attempt} of 3 failed: ${cmd} ${args.join(' ')}\n`);
    if (attempt < 3) await new Promise((r) => setTimeout(r, attempt * 5000));
  }
  return false;
}

async function install(how: Installer, missing: readonly Need[]): Promise<void> {
  if (how.kind === 'apt') {
    const apt = (args: string[]) => (how.sudo ? step('sudo', ['-n', 'apt-get', ...args]) : step('apt-get', args));
    if (!(await apt(['update', '-q']))) return;
    await apt(['install', '-y', '-q', ...missing.flatMap((n) => n.apt)]);
  } else if (how.kind === 'brew') {
    for (const n of missing) await step('brew', ['install', ...n.brew]);
  }
}

export async function setup(opts: { check: boolean }, host = THIS_HOST, log = (t: string) => void process.stderr.write(t)): Promise<SetupReport> {
  const before = await needs(host);
  for (const n of before) log(`test setup: ${n.id}: ${n.ok ? 'present' : 'MISSING'} (${n.detail})\n`);
  let missing = before.filter((n) => !n.ok);
  const installed: string[] = [];
  if (missing.length && !opts.check) {
    const how = await installer(host);
    if (how.kind === 'none') log(`test setup: cannot install: ${how.why}\n`);
    else {
      log(`test setup: installing ${missing.map((n) => n.id).join(', ')} with ${how.kind === 'apt' ? `apt-get${how.sudo ? ' (sudo)' : ''}` : 'Homebrew'}\n`);
      await install(how, missing);
      const after = await needs(host);
      installed.push(...missing.filter((n) => after.find((a) => a.id === n.id)?.ok).map((n) => n.id));
      missing = after.filter((n) => !n.ok);
    }
  }
  const report: SetupReport = {
    ok: missing.length === 0,
    installed,
    missing: missing.map((n) => ({ id: n.id, detail: n.detail, install: installCommand([n], host.platform) })),
  };
  if (missing.length) log(`test setup: still missing ${missing.map((n) => n.id).join(', ')}; install with:\n  ${installCommand(missing, host.platform)}\n`);
  return report;
}
