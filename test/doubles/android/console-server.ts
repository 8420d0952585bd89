// An emulator console for tests: the line protocol of the emulator's android/console.cpp on a TCP
// port on 127.0.0.1. The banner and the auth, ping, `avd name`, KO and unknown-command texts are the
// emulator's own (fixtures/README.md); it acts on the pretend emulator in the state folder that the
// fake adb shares (screen.mjs), so a screenshot shows what `screencap` would, and touches land in
// the same touches.log. Test hooks: a wrong token, a connection dropped when a given command
// arrives, and refusing connections altogether.
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { goHome, inputDetached, linkAt, log, pixelSize, readState, recordTouch, screenPng, updateState } from './screen.mjs';

export interface ConsoleDoubleOptions {
  stateDir: string;
  /** The token the emulator expects; empty means no auth (an empty token file). */
  token: string;
  port?: number;
}

const AXIS_MAX = 0x7fff;
const TYPES: Record<string, number> = { EV_SYN: 0, EV_KEY: 1, EV_ABS: 3 };
const CODES: Record<string, number> = {
  SYN_REPORT: 0,
  ABS_MT_SLOT: 47,
  ABS_MT_POSITION_X: 53,
  ABS_MT_POSITION_Y: 54,
  ABS_MT_TRACKING_ID: 57,
  ABS_MT_PRESSURE: 58,
};

export class ConsoleDouble {
  /** Every line the double received, with when (performance-free: Date.now, like touches.log). */
  readonly received: { line: string; at: number }[] = [];
  token: string;
  /** The next command starting with this is answered by closing the connection instead. */
  dropOn: string | null = null;
  connections = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly opts: ConsoleDoubleOptions,
    public port: number,
  ) {
    this.token = opts.token;
  }

  static async start(opts: ConsoleDoubleOptions): Promise<ConsoleDouble> {
    const double = new ConsoleDouble(opts, opts.port ?? 0);
    await double.accept();
    return double;
  }

  /** Listens (again, on the same port once it has one). */
  async accept(): Promise<void> {
    if (this.server) return;
    const server = createServer((s) => this.serve(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Closes the port and every connection: connecting is refused until accept(). */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.refuse();
  }

  private serve(socket: Socket): void {
    this.connections++;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    const session = {
      authed: this.token === '',
      mouseDown: false,
      slot: 0,
      slots: new Map<number, { id: number; x: number; y: number; moved: boolean; fresh: boolean }>(),
    };
    const say = (text: string) => socket.write(text.replace(/\n/g, '\r\n'));
    if (session.authed) say("Android Console: type 'help' for a list of commands\nOK\n");
    else
      say(
        `Android Console: Authentication required\nAndroid Console: type 'auth <auth_token>' to authenticate\nAndroid Console: you can find your <auth_token> in \n'${join(this.opts.stateDir, 'emulator_console_auth_token')}'\nOK\n`,
      );
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '').trim();
        buffer = buffer.slice(nl + 1);
        this.received.push({ line, at: Date.now() });
        log(this.opts.stateDir, `console ${line.startsWith('auth ') ? 'auth <token>' : line}`);
        if (this.dropOn !== null && line.startsWith(this.dropOn)) {
          this.dropOn = null;
          socket.destroy();
          return;
        }
        say(this.answer(line, session));
        if (/^(quit|exit)$/.test(line)) socket.end();
      }
    });
  }

  private answer(
    line: string,
    session: { authed: boolean; mouseDown: boolean; slot: number; slots: Map<number, { id: number; x: number; y: number; moved: boolean; fresh: boolean }> },
  ): string {
    const [cmd = '', ...args] = line.split(/\s+/);
    const rest = args.join(' ');
    if (cmd === 'help' || cmd === 'h' || cmd === '?') return 'Android console command help:\n    help|h|?         print a list of commands\nOK\n';
    if (cmd === 'ping') return 'I am alive!\nOK\n';
    if (cmd === 'quit' || cmd === 'exit') return '';
    if (line === 'avd name') return `${readState(this.opts.stateDir).devices[0]!.props['ro.boot.qemu.avd_name']}\nOK\n`;
    if (cmd === 'auth') {
      if (!rest) return 'KO: missing authentication token\n';
      if (rest !== this.token) return 'KO: authentication token does not match ~/.emulator_console_auth_token\n';
      session.authed = true;
      // The help banner's OK and then the auth command's own: two, as field report 000 found them.
      return "Android Console: type 'help' for a list of commands\nOK\nOK\n";
    }
    if (!session.authed) return "KO: unknown command, try 'help'\n";
    if (cmd === 'screenrecord' && args[0] === 'screenshot' && args[1]) return this.screenshot(args[1]);
    if (cmd === 'avd' && args[0] === 'snapshot' && args[1] === 'load') return this.snapshotLoad(args[2]);
    if (cmd === 'event' && args[0] === 'mouse') return this.mouse(args.slice(1), session);
    if (cmd === 'event' && args[0] === 'send') return this.send(args.slice(1), session);
    return "KO: unknown command, try 'help'\n";
  }

  private screenshot(dir: string): string {
    const state = readState(this.opts.stateDir);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    writeFileSync(join(dir, `Screenshot_${stamp}.png`), screenPng(this.opts.stateDir, state.screen, pixelSize(state.devices[0]!)));
    return 'OK\n';
  }

  private snapshotLoad(name: string | undefined): string {
    if (!name) return "KO: Argument missing, try 'avd snapshot load <name>'\n";
    const state = readState(this.opts.stateDir);
    if (!state.snapshots.includes(name)) return `KO: snapshot '${name}' does not exist\n`;
    updateState(this.opts.stateDir, (s) => {
      for (const pkg of Object.keys(s.data)) s.data[pkg] = 'clean';
      goHome(s);
    });
    return 'OK\n';
  }

  private mouse(args: string[], session: { mouseDown: boolean }): string {
    const n = args.map(Number);
    if (n.length !== 4 || n.some((v) => !Number.isInteger(v))) return 'KO: Invalid arguments. Make sure you provide 4 integers.\n';
    if (inputDetached(this.opts.stateDir)) return 'OK\n';
    const [x, y, , buttons] = n as [number, number, number, number];
    if (buttons & 1) {
      recordTouch(this.opts.stateDir, { via: 'console', action: session.mouseDown ? 'move' : 'down', x, y });
      session.mouseDown = true;
    } else if (session.mouseDown) {
      recordTouch(this.opts.stateDir, { via: 'console', action: 'up', x, y });
      session.mouseDown = false;
      // A finger lifted on a row that leads somewhere goes there, as the app would.
      updateState(this.opts.stateDir, (st) => void (st.screen = linkAt(st.screen, x, y) ?? st.screen));
    }
    return 'OK\n';
  }

  /** Linux multi-touch protocol B, as the kernel would read it: state per slot, applied at SYN_REPORT. */
  private send(tokens: string[], session: { slot: number; slots: Map<number, { id: number; x: number; y: number; moved: boolean; fresh: boolean }> }): string {
    if (tokens.length === 0) return 'KO: Usage: event send <type>:<code>:<value> ...\n';
    const size = pixelSize(readState(this.opts.stateDir).devices[0]!);
    const detached = inputDetached(this.opts.stateDir);
    for (const token of tokens) {
      const [t, c, v] = token.split(':');
      const type = TYPES[t!] ?? Number(t);
      const code = CODES[c!] ?? Number(c);
      const value = Number(v);
      if (!Number.isInteger(type)) return `KO: invalid event type in '${token}', try 'event list types' for valid values\n`;
      if (!Number.isInteger(code)) return `KO: invalid event code in '${token}', try 'event list codes <type>' for valid values\n`;
      if (!Number.isInteger(value)) return `KO: invalid event value in '${token}', must be an integer\n`;
      if (detached) continue;
      const cur = session.slots.get(session.slot);
      if (type === 3 && code === 47) session.slot = value;
      else if (type === 3 && code === 57) {
        if (value < 0) {
          if (cur) recordTouch(this.opts.stateDir, { via: 'console', action: 'up', slot: session.slot, x: cur.x, y: cur.y });
          session.slots.delete(session.slot);
        } else session.slots.set(session.slot, { id: value, x: 0, y: 0, moved: false, fresh: true });
      } else if (type === 3 && (code === 53 || code === 54) && cur) {
        if (code === 53) cur.x = Math.round((value * size.width) / AXIS_MAX);
        else cur.y = Math.round((value * size.height) / AXIS_MAX);
        cur.moved = true;
      } else if (type === 0 && code === 0) {
        for (const [slot, s] of session.slots) {
          if (!s.moved) continue;
          recordTouch(this.opts.stateDir, { via: 'console', action: s.fresh ? 'down' : 'move', slot, x: s.x, y: s.y });
          s.moved = false;
          s.fresh = false;
        }
      }
    }
    return 'OK\n';
  }
}
