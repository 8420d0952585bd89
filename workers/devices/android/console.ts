// The emulator console: a line protocol on TCP 127.0.0.1:<port>, the port being the number in the
// emulator's serial (emulator-5554 → 5554). On connect the emulator prints a banner ending "OK":
//   Android Console: Authentication required
//   Android Console: type 'auth <auth_token>' to authenticate
//   Android Console: you can find your <auth_token> in
//   '/home/me/.emulator_console_auth_token'
//   OK
// (or, with an empty token file, just "Android Console: type 'help' for a list of commands" / "OK").
// Each command is one line; its reply is any lines of output, then "OK" or "KO: <why>". Before
// `auth <token>` only help, ping, `avd name`, auth and quit exist; anything else is
// "KO: unknown command, try 'help'". A wrong token is "KO: authentication token does not match
// ~/.emulator_console_auth_token". (Text from the emulator's android/console.cpp.)
// One command is in flight at a time; a connection that drops fails the command it was carrying
// and the next command connects afresh.
import { readFile } from 'node:fs/promises';
import { createConnection, type Socket } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DeviceError } from '../backend.js';

export const DEFAULT_TOKEN_FILE = join(homedir(), '.emulator_console_auth_token');

export interface ConsoleOptions {
  port: number;
  /** Where the auth token is read from (on every connect, so a rotated token is picked up). */
  tokenFile?: string;
  host?: string;
  /** How long a command may take unless it says otherwise. */
  timeoutMs?: number;
}

interface Pending {
  lines: string[];
  resolve: (lines: string[]) => void;
  reject: (err: Error) => void;
}

/** The emulator answered KO: the command arrived and was refused (as opposed to a lost connection). */
export class ConsoleRefused extends DeviceError {
  constructor(
    message: string,
    /** The emulator's words after "KO: ". */
    readonly reply: string,
    hint?: string,
  ) {
    super('DEVICE_FAILED', message, hint);
  }
}

export class EmulatorConsole {
  private socket: Socket | undefined;
  private pending: Pending | undefined;
  private buffer = '';
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  readonly tokenFile: string;

  constructor(private readonly opts: ConsoleOptions) {
    this.tokenFile = opts.tokenFile ?? DEFAULT_TOKEN_FILE;
  }

  get port(): number {
    return this.opts.port;
  }

  /** Sends one command and returns the lines it printed before "OK". KO becomes ConsoleRefused. */
  command(line: string, timeoutMs = this.opts.timeoutMs ?? 10_000): Promise<string[]> {
    if (/[\r\n]/.test(line)) return Promise.reject(new DeviceError('VALIDATION_FAILED', 'an emulator console command is one line'));
    const run = this.tail.then(() => this.send(line, timeoutMs));
    this.tail = run.catch(() => undefined);
    return run;
  }

  async ping(): Promise<void> {
    await this.command('ping', 3000);
  }

  /** The AVD's name (allowed before auth too: Android Studio asks it first). */
  async avdName(): Promise<string> {
    return (await this.command('avd name', 3000)).join(' ').trim();
  }

  /** The emulator writes a PNG of its display into `dir` on this host. */
  async screenshot(dir: string): Promise<void> {
    if (/\s/.test(dir))
      throw new DeviceError(
        'DEVICE_FAILED',
        `the console splits arguments at spaces; the screenshot folder ${dir} has one`,
        'set TMPDIR to a path without spaces',
      );
    await this.command(`screenrecord screenshot ${dir}`, 15_000);
  }

  async snapshotLoad(name: string): Promise<void> {
    if (!/^[\w.-]+$/.test(name)) throw new DeviceError('VALIDATION_FAILED', `snapshot name ${JSON.stringify(name)} is not a plain name`);
    await this.command(`avd snapshot load ${name}`, 120_000);
  }

  close(): void {
    this.closed = true;
    this.drop(new DeviceError('DEVICE_FAILED', `the emulator console client for port ${this.port} was closed`));
  }

  private async send(line: string, timeoutMs: number): Promise<string[]> {
    if (this.closed) throw new DeviceError('DEVICE_FAILED', `the emulator console client for port ${this.port} was closed`);
    const socket = this.socket ?? (await this.connect());
    return this.exchange(socket, line, timeoutMs);
  }

  private exchange(socket: Socket, line: string | null, timeoutMs: number): Promise<string[]> {
    // The token never goes into a message.
    const shown = line === null ? 'the banner' : line.startsWith('auth ') ? 'auth <token>' : line;
    return new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        // What the emulator is doing is unknown now: start the next command on a fresh connection.
        this.drop(
          new DeviceError(
            'DEVICE_FAILED',
            `the emulator console on port ${this.port} did not answer "${shown}" within ${timeoutMs} ms`,
            'the emulator may be hung or busy (a snapshot load can take a while); the next command reconnects',
          ),
        );
      }, timeoutMs);
      this.pending = {
        lines: [],
        resolve: (lines) => {
          clearTimeout(timer);
          resolve(lines);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      if (line !== null) socket.write(`${line}\n`);
      this.pump();
    }).catch((err: Error) => {
      if (line === null || !(err instanceof DeviceError)) throw err;
      if (err instanceof ConsoleRefused)
        throw new ConsoleRefused(`the emulator console on port ${this.port} refused "${shown}": ${err.reply}`, err.reply, err.hint);
      throw new DeviceError(err.code, err.message.replace('during the command', `during "${shown}"`), err.hint);
    });
  }

  private async connect(): Promise<Socket> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ host: this.opts.host ?? '127.0.0.1', port: this.port });
      const fail = (err: NodeJS.ErrnoException) => {
        s.destroy();
        reject(
          err.code === 'ECONNREFUSED'
            ? new DeviceError(
                'DEVICE_FAILED',
                `the emulator console at 127.0.0.1:${this.port} refused the connection`,
                `is the emulator running? its console port is the number in its serial (emulator-${this.port})`,
              )
            : new DeviceError(
                'DEVICE_FAILED',
                `could not reach the emulator console at 127.0.0.1:${this.port}: ${err.message}`,
                'the emulator may have exited',
              ),
        );
      };
      s.once('error', fail);
      s.setTimeout(5000, () => fail(Object.assign(new Error('connect timed out after 5000 ms'), { code: 'ETIMEDOUT' })));
      s.once('connect', () => {
        s.off('error', fail);
        s.setTimeout(0);
        resolve(s);
      });
    });
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    this.socket = socket;
    this.buffer = '';
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.pump();
    });
    const lost = (why: string) => () => {
      if (this.socket !== socket) return;
      this.drop(
        new DeviceError(
          'DEVICE_FAILED',
          `the emulator console on port ${this.port} dropped the connection during the command (${why})`,
          'the emulator may have exited or restarted; the next command reconnects',
        ),
      );
    };
    socket.on('error', (err) => lost(err.message)());
    socket.on('close', lost('closed by the emulator'));
    try {
      const banner = await this.exchange(socket, null, 5000);
      if (banner.some((l) => /Authentication required/.test(l))) await this.auth(socket);
      return socket;
    } catch (err) {
      this.drop(err as Error);
      throw err;
    }
  }

  private async auth(socket: Socket): Promise<void> {
    let token: string;
    try {
      token = (await readFile(this.tokenFile, 'utf8')).trim();
    } catch (err) {
      throw new DeviceError(
        'DEVICE_FAILED',
        `the emulator console on port ${this.port} wants an auth token, and ${this.tokenFile} could not be read: ${(err as Error).message}`,
        `point consoleTokenFile at the token file of the user running the emulator (its ~/.emulator_console_auth_token)`,
      );
    }
    try {
      await this.exchange(socket, `auth ${token}`, 5000);
    } catch (err) {
      if (!(err instanceof ConsoleRefused)) throw err;
      throw new DeviceError(
        'DEVICE_FAILED',
        `the emulator console on port ${this.port} refused the token from ${this.tokenFile}: ${err.reply}`,
        `the token in ${this.tokenFile} must match the emulator's (the ~/.emulator_console_auth_token of the user running it); set consoleTokenFile`,
      );
    }
    // The emulator follows a good auth with the help banner's OK as well as the command's own (field
    // report 000: a client counting one OK per command then reads every later reply one command
    // early, and took a screenshot's OK before the file was written). A ping is the barrier: any OK
    // before its "I am alive!" still belongs to the auth.
    let lines = await this.exchange(socket, 'ping', 5000);
    for (let i = 0; i < 3 && !lines.some((l) => l.includes('I am alive')); i++) lines = await this.exchange(socket, null, 5000);
    if (!lines.some((l) => l.includes('I am alive')))
      throw new DeviceError(
        'DEVICE_FAILED',
        `the emulator console on port ${this.port} did not answer a ping after auth`,
        'the console is out of step; the next command reconnects',
      );
  }

  /** Hands complete lines to the command in flight; "OK" or "KO: …" ends its reply. */
  private pump(): void {
    let nl: number;
    while (this.pending && (nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      const p = this.pending;
      if (line === 'OK') {
        this.pending = undefined;
        p.resolve(p.lines);
      } else if (line.startsWith('KO:')) {
        this.pending = undefined;
        const reply = line.slice(3).trim();
        p.reject(new ConsoleRefused(`the emulator console on port ${this.port} answered KO: ${reply}`, reply));
      } else {
        p.lines.push(line);
      }
    }
  }

  private drop(err: Error): void {
    const socket = this.socket;
    this.socket = undefined;
    this.buffer = '';
    socket?.destroy();
    const p = this.pending;
    this.pending = undefined;
    p?.reject(err);
  }
}
