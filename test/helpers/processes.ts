// Real simfleet processes (the built CLI) with their JSON logs captured for assertions.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

export const CLI = fileURLToPath(new URL('../../dist/server/cli/main.js', import.meta.url));
export const TEST_ADMIN_TOKEN = 'sf_test_admin_token_0123456789abcdef';

export interface SimfleetProcess {
  proc: ChildProcess;
  logs: Record<string, unknown>[];
  stdout(): string;
  stderr(): string;
  waitForLog(what: string, pred: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

const running = new Set<ChildProcess>();

/** `prefix`: a command the process runs under (`ip netns exec NAME`, for a host on its own network). */
export function spawnSimfleet(args: string[], env: Record<string, string | undefined> = {}, cwd?: string, prefix: string[] = []): SimfleetProcess {
  const [command, ...before] = prefix.length ? prefix : [process.execPath];
  const proc = spawn(command!, prefix.length ? [...before, process.execPath, CLI, ...args] : [CLI, ...args], {
    cwd,
    // Workers start no browser unless a test asks for web devices.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SIMFLEET_LOG_LEVEL: 'info', SIMFLEET_WEB_DEVICES: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  let err = '';
  const logs: Record<string, unknown>[] = [];
  let partial = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        /* a banner line */
      }
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    }),
  );
  return {
    proc,
    logs,
    stdout: () => out,
    stderr: () => err,
    waitForLog: (what, pred, timeoutMs = 20_000) =>
      waitFor(
        `${what} in the log of simfleet ${args[0]}`,
        () => {
          if (proc.exitCode !== null) throw new Error(`process exited with ${proc.exitCode}: ${err || out.slice(-2000)}`);
          return logs.find(pred);
        },
        timeoutMs,
      ),
    exited: (timeoutMs = 20_000) =>
      Promise.race([
        exit,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`simfleet ${args[0]} did not exit within ${timeoutMs} ms`)), timeoutMs)),
      ]),
    kill: (signal = 'SIGTERM') => proc.kill(signal),
  };
}

export interface GatewayProcess extends SimfleetProcess {
  url: string;
}

export async function startGatewayProcess(env: Record<string, string | undefined>): Promise<GatewayProcess> {
  const p = spawnSimfleet(['gateway'], { SIMFLEET_PORT: '0', SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env });
  // A gateway process starts in about a second alone; beside two Chromium suites on a slow 2-core
  // host, one once took over 30 s (a CI rehearsal that ran 1,405 s in all).
  const listening = await p.waitForLog('gateway listening', (l) => l.msg === 'gateway listening', 60_000);
  return Object.assign(p, { url: listening.url as string });
}

export async function startWorkerProcess(
  env: Record<string, string | undefined>,
  waitRegistered = true,
  args: string[] = [],
  prefix: string[] = [],
): Promise<SimfleetProcess> {
  const p = spawnSimfleet(['worker', ...args], env, undefined, prefix);
  if (waitRegistered) await p.waitForLog('registration', (l) => l.msg === 'registered with the gateway');
  return p;
}

/** Kills every process a test file started; call from afterAll. */
export async function killAll(): Promise<void> {
  const procs = [...running];
  for (const p of procs) p.kill('SIGKILL');
  await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r(undefined) : p.once('exit', r)))));
}
