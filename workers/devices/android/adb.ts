// The adb executable, run once per call with `-s SERIAL`: argument arrays only (never a host shell),
// a timeout and a bounded output buffer on every call. adb's own complaints (device offline,
// unauthorized, gone) become DeviceErrors that say what to do; what the command on the device
// printed is the caller's to judge, because `adb shell` passes on the device command's exit status.
import { type ChildProcess, execFile } from 'node:child_process';
import { once } from 'node:events';
import { DeviceError } from '../backend.js';

export const ADB_INSTALL_HINT = 'install Android platform-tools (Debian: apt-get install adb) or set SIMFLEET_ADB';

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export interface AdbCall {
  serial?: string;
  timeoutMs?: number;
  /** Largest stdout accepted; more is a failure, not a silent cut. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** A non-zero exit that is not adb's own complaint is returned, not thrown (monkey, pm, am). */
  allowExit?: boolean;
}

export interface AdbOutput {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** adb itself is missing or cannot run: the backend is unavailable, not a device broken. */
export class AdbMissing extends DeviceError {
  constructor(message: string) {
    super('DEVICE_FAILED', message, ADB_INSTALL_HINT);
  }
}

export class Adb {
  /** Calls still running: closing waits for them, so nothing runs adb against a device after its backend is gone. */
  private readonly running = new Set<ChildProcess>();
  private stopping = false;

  constructor(readonly path: string) {}

  /** Waits up to `withinMs` for the calls still running to end, then kills what is left. */
  async drain(withinMs: number): Promise<void> {
    const exits = [...this.running].map((child) =>
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), withinMs)));
    const outcome = await Promise.race([Promise.all(exits), deadline]);
    clearTimeout(timer);
    if (outcome !== 'late') return;
    this.stopping = true;
    for (const child of this.running) child.kill('SIGKILL');
  }

  /** `adb version`, as printed (first lines name the version and where it is installed). */
  async version(): Promise<string> {
    return (await this.text(['version'], { timeoutMs: 5000 })).trim();
  }

  /** A command on the device through `adb shell`; the one string is parsed by the device's shell. */
  async shell(serial: string, command: string, call: Omit<AdbCall, 'serial'> = {}): Promise<string> {
    return (await this.run(['shell', command], { ...call, serial })).stdout.toString('utf8');
  }

  /** Same, keeping the exit status and stderr for commands whose failure is ordinary output. */
  async shellResult(serial: string, command: string, call: Omit<AdbCall, 'serial' | 'allowExit'> = {}): Promise<{ out: string; code: number }> {
    const r = await this.run(['shell', command], { ...call, serial, allowExit: true });
    return { out: r.stdout.toString('utf8') + r.stderr, code: r.code };
  }

  /** Raw bytes from the device (`exec-out` has no pty, so binary output arrives unmangled). */
  async execOut(serial: string, args: string[], call: Omit<AdbCall, 'serial'> = {}): Promise<Buffer> {
    return (await this.run(['exec-out', ...args], { ...call, serial })).stdout;
  }

  async text(args: string[], call: AdbCall = {}): Promise<string> {
    return (await this.run(args, call)).stdout.toString('utf8');
  }

  run(args: string[], call: AdbCall = {}): Promise<AdbOutput> {
    const argv = call.serial ? ['-s', call.serial, ...args] : args;
    const timeout = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.path,
        argv,
        { encoding: 'buffer', timeout, maxBuffer: call.maxBytes ?? DEFAULT_MAX_BYTES, windowsHide: true, ...(call.signal ? { signal: call.signal } : {}) },
        (err, stdout, stderrBuf) => {
          this.running.delete(child);
          const stderr = stderrBuf.toString('utf8');
          if (!err) return resolve({ stdout, stderr, code: 0 });
          const failure = this.explain(err as NodeJS.ErrnoException & { killed?: boolean; code?: unknown }, args, call, stderr, timeout);
          if (failure) return reject(failure);
          resolve({ stdout, stderr, code: typeof err.code === 'number' ? err.code : 1 });
        },
      );
      this.running.add(child);
    });
  }

  /** The DeviceError for a failed call, or null when the caller asked to see a device command's failure. */
  private explain(
    err: NodeJS.ErrnoException & { killed?: boolean; code?: unknown },
    args: string[],
    call: AdbCall,
    stderr: string,
    timeout: number,
  ): DeviceError | null {
    const what = `adb ${args.join(' ').slice(0, 120)}`;
    const on = call.serial ? ` on ${call.serial}` : '';
    if (err.code === 'ENOENT') return new AdbMissing(`adb was not found at ${this.path}`);
    if (err.code === 'EACCES') return new AdbMissing(`adb at ${this.path} cannot be run (permission denied)`);
    if (err.code === 'ABORT_ERR' || err.name === 'AbortError') return new DeviceError('DEVICE_FAILED', `${what}${on} was cancelled`);
    if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
      return new DeviceError(
        'DEVICE_FAILED',
        `${what}${on} printed more than ${call.maxBytes ?? DEFAULT_MAX_BYTES} bytes`,
        'the device answered far more than expected; check it by hand with the same command',
      );
    }
    if (err.killed && this.stopping) return new DeviceError('DEVICE_FAILED', `${what}${on} was stopped: the Android backend is closing`);
    if (err.killed) {
      return new DeviceError(
        'DEVICE_FAILED',
        `${what}${on} took longer than ${timeout} ms`,
        `the device may be hung: try \`adb -s ${call.serial ?? 'SERIAL'} reconnect\`, or restart the emulator`,
      );
    }
    const transport = transportFailure(stderr, call.serial);
    if (transport) return transport;
    if (call.allowExit) return null;
    const said = firstLine(stderr) || firstLine(err.message);
    return new DeviceError('DEVICE_FAILED', `${what}${on} failed (exit ${String(err.code)}): ${said}`);
  }
}

/** adb's own words for a device it cannot reach, as a DeviceError; null when stderr is not one of them. */
export function transportFailure(stderr: string, serial: string | undefined): DeviceError | null {
  const who = serial ?? 'the device';
  if (/device offline/i.test(stderr)) {
    return new DeviceError(
      'DEVICE_FAILED',
      `${who} is offline`,
      `it is still booting or its adb connection is stuck: wait, or run \`adb -s ${who} reconnect\`; a stuck emulator needs a restart`,
    );
  }
  if (/unauthorized/i.test(stderr)) {
    return new DeviceError(
      'DEVICE_FAILED',
      `${who} has not authorized this computer's adb key`,
      'accept the USB debugging prompt on the device; for an emulator, restart the adb server (`adb kill-server`) so it offers its key again',
    );
  }
  if (/device '.*' not found|no devices\/emulators found|device not found/i.test(stderr)) {
    return new DeviceError(
      'DEVICE_FAILED',
      `${who} is gone: adb no longer lists it`,
      'the emulator exited or was restarted under another serial: see `adb devices -l`',
    );
  }
  if (/insufficient permissions|no permissions/i.test(stderr)) {
    return new DeviceError(
      'DEVICE_FAILED',
      `adb has no permission to talk to ${who}`,
      'install the udev rules for Android devices (Debian: apt-get install android-sdk-platform-tools-common) and replug',
    );
  }
  if (/^error: closed|protocol fault|connection reset/im.test(stderr)) {
    return new DeviceError(
      'DEVICE_FAILED',
      `adb lost its connection to ${who}: ${firstLine(stderr)}`,
      'the emulator may be restarting; it is retried on the next call',
    );
  }
  return null;
}

/**
 * One argument for the device's shell, single-quoted: `adb shell` hands the device one command
 * line, which the device's shell splits again, so every value we interpolate is quoted for it.
 */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ''
  );
}
