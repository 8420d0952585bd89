#!/usr/bin/env node
// The simfleet command: the composition root, and the one place that knows both the gateway and
// the worker (through workers/index.ts only).
import { GATEWAY_FLAGS, ConfigError, loadGatewayConfig } from '../config.js';
import { EmbeddedDatabaseInUseError } from '../db/open.js';
import { MigrationError } from '../db/migrate.js';
import { version } from '../paths.js';
import { WORKER_FLAGS, WorkerConfigError, loadWorkerConfig } from '../../workers/index.js';
import { parseFlags, UsageError } from './args.js';
import { runMigrate } from './migrate.js';
import { runInspect } from './inspect.js';
import { runGateway, runStart } from './serve.js';
import { runToken, tokenClientSettings } from './token.js';
import { runWorker } from './worker.js';

const HELP = `simfleet ${version}: a device service for remote farms of mobile devices

usage: simfleet <command> [flags]

  start      gateway + a local worker + embedded Postgres (unless DATABASE_URL is set)
  gateway    the API gateway alone (farm deployments)
  worker     a host agent: simfleet worker --gateway URL --token T
  migrate    apply database migrations and exit (--status only reports)
  token      create|list|revoke tokens through a running gateway
  inspect    read saved screen dumps offline: outline, fingerprint, identity
             (--compare FILE FILE... for same/different; --json; --format F; --density D)

Every setting is an environment variable and a flag (SIMFLEET_DATA_DIR = --data-dir);
see README.md for the list. Exit codes: 0 ok, 1 failure, 2 bad usage or configuration.
`;

const START_WORKER_FLAGS = Object.keys(WORKER_FLAGS).filter((f) => !['gateway', 'token', 'data-dir', 'log-level', 'ws-max-payload-bytes'].includes(f));

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
      const { flags } = parseFlags(rest, [...GATEWAY_FLAGS, ...START_WORKER_FLAGS]);
      return runStart(loadGatewayConfig(process.env, flags), process.env, flags);
    }
    case 'gateway': {
      const { flags } = parseFlags(rest, GATEWAY_FLAGS);
      return runGateway(loadGatewayConfig(process.env, flags));
    }
    case 'worker': {
      const { flags } = parseFlags(rest, Object.keys(WORKER_FLAGS));
      return runWorker(loadWorkerConfig(process.env, flags));
    }
    case 'migrate': {
      const { flags, bools } = parseFlags(rest, GATEWAY_FLAGS, ['status']);
      return runMigrate(loadGatewayConfig(process.env, flags), bools.status === true);
    }
    case 'token': {
      const { flags, positionals } = parseFlags(rest, ['gateway', 'admin-token', 'data-dir', 'role', 'team', 'name']);
      return runToken(positionals[0], positionals.slice(1), flags, tokenClientSettings(process.env, flags));
    }
    case 'inspect': {
      const { flags, bools, positionals } = parseFlags(rest, ['format', 'density'], ['compare', 'json']);
      process.exitCode = await runInspect(positionals, { compare: bools.compare === true, json: bools.json === true, format: flags.format, density: flags.density });
      return;
    }
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

main(process.argv.slice(2)).catch((err: unknown) => {
  const usage = err instanceof UsageError || err instanceof ConfigError || err instanceof WorkerConfigError;
  const known = usage || err instanceof EmbeddedDatabaseInUseError || err instanceof MigrationError;
  process.stderr.write(`simfleet: ${known ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
  process.exit(usage ? 2 : 1);
});
