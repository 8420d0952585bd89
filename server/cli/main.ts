#!/usr/bin/env node
// The simfleet command: the composition root, and the one place that knows both the gateway and
// the worker (through workers/index.ts only).
// Each command loads its own code when it runs (`await import`): a worker process does not carry
// the gateway, Fastify, pg and the embedded Postgres (about 12 MB of heap and 27 MB of RSS), nor a
// gateway the worker's perception and backends.
import { GATEWAY_FLAGS, loadGatewayConfig } from '../config.js';
import { version } from '../paths.js';
import { parseFlags, UsageError } from './args.js';
import { clientSettings, GatewayError } from './gateway-client.js';
import { AGENT_COMMANDS, AGENT_HELP, runAgentCommand } from './agent.js';
import { asksForHelp, USAGE as COMMAND_USAGE } from './usage.js';

const HELP = `simfleet ${version}: a device service for remote farms of mobile devices

usage: simfleet <command> [flags]

  start      gateway + a local worker + embedded Postgres (unless DATABASE_URL is set)
  gateway    the API gateway alone (farm deployments)
  worker     a host agent: simfleet worker --gateway URL --token T
  migrate    apply database migrations and exit (--status only reports)
  doctor     what this host has and lacks for each backend, and how to get it (--json);
             exit 1 when a configured backend lacks something
  token      create|list|revoke tokens through a running gateway
  inspect    read saved screen dumps offline: outline, fingerprint, identity
             (--compare FILE FILE... for same/different; --json; --format F; --density D)
  maestro    check FILE|DIR...: parse Maestro flows (a directory as a workspace) without a device;
             test|run FILE|DIR... --session ID: run them
             run FILE... --session ID [--junit FILE]: run them on a session's device
             (-e KEY=VAL sets a flow variable; --token T or SIMFLEET_TOKEN for run)
  replay     NAME --session ID [--app A] [--from N --plan-digest D] [--junit FILE]:
             replay a saved flow; stops before a wrong touch with a divergence report
${AGENT_HELP}  mcp        an MCP server on stdio for AI agents, driving devices through the gateway
             (SIMFLEET_URL, SIMFLEET_TOKEN; SIMFLEET_SESSION as the default session)

simfleet COMMAND --help prints a command's own usage.
Every setting is an environment variable and a flag (SIMFLEET_DATA_DIR = --data-dir);
see README.md for the list. Exit codes: 0 ok, 1 failure, 2 bad usage or configuration,
3 refused (nothing matched, two things did, a stale ref, a destructive step, another plan).
`;

/** Errors a command throws that say what is wrong in a sentence: no stack trace for them. */
const EXPLAINED = new Set(['ConfigError', 'WorkerConfigError', 'EmbeddedDatabaseInUseError', 'MigrationError']);
/** Errors that mean the command was given wrong (exit 2). */
const USAGE = new Set(['UsageError', 'ConfigError', 'WorkerConfigError']);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command && COMMAND_USAGE[command] && asksForHelp(rest)) {
    process.stdout.write(`${COMMAND_USAGE[command]}\n`);
    return;
  }
  if ((AGENT_COMMANDS as readonly string[]).includes(command ?? '')) {
    process.exitCode = await runAgentCommand(command!, rest, process.env, {
      out: (t) => void process.stdout.write(t),
      err: (t) => void process.stderr.write(t),
    });
    return;
  }
  switch (command) {
    case 'start': {
      const { WORKER_FLAGS } = await import('../../workers/index.js');
      const startWorkerFlags = Object.keys(WORKER_FLAGS).filter((f) => !['gateway', 'token', 'data-dir', 'log-level', 'ws-max-payload-bytes'].includes(f));
      const { flags } = parseFlags(rest, [...GATEWAY_FLAGS, ...startWorkerFlags]);
      const config = loadGatewayConfig(process.env, flags);
      return (await import('./serve.js')).runStart(config, process.env, flags);
    }
    case 'gateway': {
      const { flags } = parseFlags(rest, GATEWAY_FLAGS);
      const config = loadGatewayConfig(process.env, flags);
      return (await import('./serve.js')).runGateway(config);
    }
    case 'worker': {
      const { WORKER_FLAGS, loadWorkerConfig } = await import('../../workers/index.js');
      const { flags } = parseFlags(rest, Object.keys(WORKER_FLAGS));
      const config = loadWorkerConfig(process.env, flags);
      return (await import('./worker.js')).runWorker(config);
    }
    case 'migrate': {
      const { flags, bools } = parseFlags(rest, GATEWAY_FLAGS, ['status']);
      const config = loadGatewayConfig(process.env, flags);
      return (await import('./migrate.js')).runMigrate(config, bools.status === true);
    }
    case 'doctor': {
      const { WORKER_FLAGS } = await import('../../workers/index.js');
      const { flags, bools } = parseFlags(rest, Object.keys(WORKER_FLAGS), ['json']);
      process.exitCode = await (await import('./doctor.js')).runDoctor(process.env, flags, {
        json: bools.json === true,
        out: (t) => void process.stdout.write(t),
      });
      return;
    }
    case 'token': {
      const { flags, positionals } = parseFlags(rest, ['gateway', 'admin-token', 'data-dir', 'role', 'team', 'name']);
      const { runToken, tokenClientSettings } = await import('./token.js');
      return runToken(positionals[0], positionals.slice(1), flags, tokenClientSettings(process.env, flags));
    }
    case 'inspect': {
      const { flags, bools, positionals } = parseFlags(rest, ['format', 'density'], ['compare', 'json']);
      process.exitCode = await (await import('./inspect.js')).runInspect(positionals, {
        compare: bools.compare === true,
        json: bools.json === true,
        format: flags.format,
        density: flags.density,
      });
      return;
    }
    case 'maestro': {
      const { env, rest: args } = takeEnv(rest);
      const { flags, bools, positionals } = parseFlags(args, ['session', 'junit', 'gateway', 'token', 'include-tags', 'exclude-tags'], ['json']);
      const list = (v: string | undefined) =>
        v
          ? v
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean)
          : undefined;
      const tags = {
        ...(list(flags['include-tags']) ? { include: list(flags['include-tags'])! } : {}),
        ...(list(flags['exclude-tags']) ? { exclude: list(flags['exclude-tags'])! } : {}),
      };
      if (positionals[0] !== 'run' && positionals[0] !== 'test') {
        process.exitCode = await (await import('./maestro.js')).runMaestro(positionals, { json: bools.json === true, env, tags });
        return;
      }
      const paths = positionals.slice(1);
      if (!paths.length || !flags.session) throw new UsageError(`maestro ${positionals[0]} needs FILE|DIR... and --session ID`);
      process.exitCode = await (await import('./flow-run.js')).runMaestroFiles(paths, needClient(flags), {
        session: flags.session,
        junit: flags.junit,
        env,
        tags,
        out: (t) => void process.stdout.write(t),
      });
      return;
    }
    case 'replay': {
      const { flags, positionals } = parseFlags(rest, ['session', 'junit', 'gateway', 'token', 'app', 'from', 'plan-digest']);
      if (positionals.length !== 1 || !flags.session) throw new UsageError('replay needs the flow name and --session ID');
      const from = flags.from === undefined ? undefined : Number(flags.from);
      if (from !== undefined && !(Number.isInteger(from) && from >= 0)) throw new UsageError('--from is a step index (0, 1, ...)');
      process.exitCode = await (await import('./flow-run.js')).runReplay(positionals[0]!, needClient(flags), {
        session: flags.session,
        junit: flags.junit,
        env: {},
        out: (t) => void process.stdout.write(t),
        ...(flags.app ? { app: flags.app } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(flags['plan-digest'] ? { planDigest: flags['plan-digest'] } : {}),
      });
      return;
    }
    case 'mcp':
      // Loaded only here: no other command needs the MCP SDK.
      parseFlags(rest, []);
      return (await import('./mcp.js')).runMcp(process.env);
    case '--version':
    case 'version':
      process.stdout.write(`${version}\n`);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n\n${HELP}`);
  }
}

/** `-e KEY=VAL` pairs (Maestro's flag for flow variables), taken out before the other flags. */
function takeEnv(argv: string[]): { env: Record<string, string>; rest: string[] } {
  const env: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '-e') {
      rest.push(argv[i]!);
      continue;
    }
    const m = (argv[++i] ?? '').match(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s);
    if (!m) throw new UsageError('-e takes KEY=VAL');
    env[m[1]!] = m[2]!;
  }
  return { env, rest };
}

function needClient(flags: Record<string, string | undefined>) {
  const s = clientSettings(process.env, flags);
  if (!s) throw new UsageError("no token: pass --token or set SIMFLEET_TOKEN (an agent token of the session's team)");
  return s;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const name = err instanceof Error ? err.name : '';
  const usage = USAGE.has(name);
  const known = usage || EXPLAINED.has(name) || err instanceof GatewayError;
  const hint = err instanceof GatewayError && err.hint ? `\n  hint: ${err.hint}` : '';
  process.stderr.write(
    `simfleet: ${err instanceof GatewayError ? `${err.code}: ` : ''}${known ? (err as Error).message : ((err as Error).stack ?? String(err))}${hint}\n`,
  );
  process.exit(usage ? 2 : 1);
});
