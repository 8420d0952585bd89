// What the host checks share: running a tool once to read what it prints, finding an executable,
// and building a check's answer. A probe never throws: a tool that is not there, hangs or fails is
// an answer (missing, broken), not an error.
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { components } from '../../openapi/generated/types.js';

export type HostCheck = components['schemas']['HostCheck'];
export type HostBackendPlan = components['schemas']['HostBackendPlan'];

/** What a host check may ask of its host; tests give their own. */
export interface ProbeHost {
  platform: NodeJS.Platform;
  /** The user the checks run as (0: root); undefined where there are no uids (Windows). */
  uid: number | undefined;
  env: NodeJS.ProcessEnv;
}

export const THIS_HOST: ProbeHost = { platform: process.platform, uid: process.getuid?.(), env: process.env };

export type ProbeResult = { ok: true; out: string } | { ok: false; kind: 'missing' | 'timeout' | 'exit'; out: string; message: string };

/** Runs `file args` once; stdout and stderr together (tools differ in where they print a version). */
export function probe(
  file: string,
  args: readonly string[],
  opts: { timeoutMs?: number; uid?: number; gid?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ProbeResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const done = (r: ProbeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    // The environment's PATH is where a bare name is looked up.
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid ?? opts.uid } : {}),
    });
    const keep = (chunk: Buffer) => {
      if (out.length < 64 * 1024) out += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, kind: 'timeout', out, message: `\`${[file, ...args].join(' ')}\` did not finish within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, kind: err.code === 'ENOENT' ? 'missing' : 'exit', out, message: `${file} cannot run: ${err.message}` }),
    );
    child.on('close', (code, signal) => {
      if (code === 0) done({ ok: true, out });
      else
        done({
          ok: false,
          kind: 'exit',
          out,
          message: `\`${[file, ...args].join(' ')}\` ${signal ? `was killed (${signal})` : `exited ${code}`}: ${said(out)}`,
        });
    });
  });
}

/** The first lines a tool printed, short enough for a message. */
export function said(out: string): string {
  return out.trim().split('\n').slice(0, 3).join(' ').slice(0, 300) || '(it printed nothing)';
}

export async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The first executable of this name in the PATH's folders, then in `extra`; undefined if none. */
export async function findExecutable(name: string, env: NodeJS.ProcessEnv, extra: readonly string[] = []): Promise<string | undefined> {
  for (const dir of [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...extra]) {
    if (await executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Where Homebrew puts tools, for a worker started by launchd with a bare PATH. */
export const HOMEBREW_BIN = ['/opt/homebrew/bin', '/usr/local/bin'];

/** The command for this kind of host: apt on Linux, Homebrew on macOS. */
export function installCommand(platform: NodeJS.Platform, apt: string, brew: string): string {
  return platform === 'darwin' ? brew : apt;
}

/** "Chromium 156.0.8078.129 built on Debian" → "156.0.8078.129"; the first dotted number in the text. */
export function firstVersion(text: string): string | undefined {
  return /(?:^|[^\d.])v?(\d+(?:\.\d+)+(?:-[\w.]+)?)/.exec(text)?.[1];
}
