// The simfleet command as a newcomer first meets it (issue 40): every command answers --help with
// its own usage, and a command that cannot reach the gateway says so in one line with a hint.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_COMMANDS } from '../../server/cli/agent.js';
import { killAll, spawnSimfleet, TEST_ADMIN_TOKEN } from '../helpers/processes.js';

afterAll(() => killAll());

async function run(args: string[], env: Record<string, string> = {}) {
  const p = spawnSimfleet(args, env);
  const { code } = await p.exited();
  return { code, out: p.stdout(), err: p.stderr() };
}

describe('simfleet COMMAND --help', () => {
  it('prints the usage of every command the top-level help lists, and exits 0', async () => {
    const top = await run(['--help']);
    // "  start      gateway + ..." : each command the help names at the start of a line.
    const listed = [...top.out.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
    const commands = [...new Set([...listed, ...AGENT_COMMANDS])];
    expect(commands).toEqual(expect.arrayContaining(['start', 'gateway', 'worker', 'migrate', 'token', 'inspect', 'maestro', 'replay', 'mcp', 'tap']));
    const answers = await Promise.all(commands.map(async (c) => [c, await run([c, '--help'])] as const));
    for (const [c, a] of answers) {
      expect({ c, code: a.code, err: a.err }).toEqual({ c, code: 0, err: '' });
      expect(a.out).toMatch(new RegExp(`^usage: simfleet ${c}\\b`));
    }
  });

  it('answers -h, and --help after other arguments, the same way', async () => {
    const [short, late] = await Promise.all([run(['token', '-h']), run(['token', 'create', '--role', 'agent', '--help'])]);
    expect(short.code).toBe(0);
    expect(late.code).toBe(0);
    expect(short.out).toMatch(/^usage: simfleet token create --role/);
    expect(late.out).toBe(short.out);
  });
});

describe('a command with no gateway to reach', () => {
  let nowhere = '';
  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    nowhere = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.close();
  });

  it.each([[['token', 'create', '--role', 'agent', '--name', 'x']], [['token', 'list']], [['session', 'list']]])(
    'simfleet %j says UNREACHABLE with a hint, no stack trace, and exits 1',
    async (args) => {
      const a = await run([...args, '--gateway', nowhere], { SIMFLEET_ADMIN_TOKEN: TEST_ADMIN_TOKEN, SIMFLEET_TOKEN: TEST_ADMIN_TOKEN });
      expect(a.code).toBe(1);
      expect(a.err.startsWith(`simfleet: UNREACHABLE: cannot reach the gateway at ${nowhere} (ECONNREFUSED)\n  hint: is it running`), a.err).toBe(true);
      expect(a.err).not.toMatch(/^\s+at /m);
    },
  );
});
