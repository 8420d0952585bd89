// The gateway's configuration, and the CLI clients' (which gateway, which token): the only module
// that reads the environment or flags on the server side (the worker has its own, workers/config.ts).
// Every setting has an environment name and a flag (SIMFLEET_DATA_DIR ⇔ --data-dir); flags win.
// Durations and sizes carry their unit in the name, so nobody has to guess what "30" means.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import envSchema from 'env-schema';

const schema = {
  type: 'object',
  required: ['SIMFLEET_PORT', 'SIMFLEET_HOST', 'SIMFLEET_DATA_DIR'],
  properties: {
    SIMFLEET_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 7420 },
    SIMFLEET_HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    SIMFLEET_DATA_DIR: { type: 'string', minLength: 1, default: './.simfleet' },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    SIMFLEET_ADMIN_TOKEN: { type: 'string', minLength: 24, pattern: '^[A-Za-z0-9_-]+$' },
    SIMFLEET_LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    SIMFLEET_GATEWAY_ID: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{2,48}$' },
    SIMFLEET_HEARTBEAT_INTERVAL_MS: { type: 'integer', minimum: 50, maximum: 600000, default: 5000 },
    SIMFLEET_HOST_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3600000, default: 30000 },
    SIMFLEET_HELLO_TIMEOUT_MS: { type: 'integer', minimum: 50, maximum: 600000, default: 10000 },
    SIMFLEET_BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, maximum: 104857600, default: 1048576 },
    SIMFLEET_WS_MAX_PAYLOAD_BYTES: { type: 'integer', minimum: 1024, maximum: 104857600, default: 1048576 },
    SIMFLEET_SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600000, default: 10000 },
    SIMFLEET_DB_POOL_SIZE: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    SIMFLEET_SESSION_DEFAULT_TTL_MS: { type: 'integer', minimum: 10000, maximum: 604800000, default: 900000 },
    SIMFLEET_SESSION_MAX_TTL_MS: { type: 'integer', minimum: 10000, maximum: 604800000, default: 14400000 },
    SIMFLEET_SESSION_DEFAULT_IDLE_MS: { type: 'integer', minimum: 5000, maximum: 86400000, default: 300000 },
    SIMFLEET_QUEUE_DEFAULT_WAIT_MS: { type: 'integer', minimum: 0, maximum: 86400000, default: 600000 },
    SIMFLEET_QUEUE_AGING_MS: { type: 'integer', minimum: 100, maximum: 86400000, default: 120000 },
    SIMFLEET_FAIRNESS_WINDOW_MS: { type: 'integer', minimum: 1000, maximum: 86400000, default: 600000 },
    SIMFLEET_TEAM_MAX_SESSIONS: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
    SIMFLEET_PLACEMENT_INTERVAL_MS: { type: 'integer', minimum: 50, maximum: 60000, default: 1000 },
    SIMFLEET_PLACEMENT_BATCH: { type: 'integer', minimum: 1, maximum: 5000, default: 200 },
    SIMFLEET_REAPER_INTERVAL_MS: { type: 'integer', minimum: 50, maximum: 60000, default: 1000 },
    SIMFLEET_EXPIRY_WARNING_MS: { type: 'integer', minimum: 0, maximum: 3600000, default: 60000 },
    SIMFLEET_PREPARE_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3600000, default: 120000 },
    SIMFLEET_RESET_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3600000, default: 120000 },
    SIMFLEET_CREATE_WAIT_MS: { type: 'integer', minimum: 0, maximum: 600000, default: 30000 },
    SIMFLEET_WEB_ALLOWED_ORIGINS: { type: 'string', maxLength: 20000, default: '*' },
    SIMFLEET_WEB_ALLOW_PRIVATE: { type: 'boolean', default: false },
  },
} as const;

type Key = keyof typeof schema.properties;

export interface GatewayConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Unset means the embedded Postgres (PGlite) under dataDir. */
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  logLevel: string;
  gatewayId: string;
  heartbeatIntervalMs: number;
  hostTimeoutMs: number;
  helloTimeoutMs: number;
  bodyLimitBytes: number;
  wsMaxPayloadBytes: number;
  shutdownTimeoutMs: number;
  dbPoolSize: number;
  /** Which pages web devices may open: sent to the worker with every prepare. */
  webOrigins: { allowedOrigins: string[]; allowPrivate: boolean };
  sessions: {
    defaultTtlMs: number;
    maxTtlMs: number;
    defaultIdleMs: number;
    defaultWaitMs: number;
    agingMs: number;
    fairnessWindowMs: number;
    teamMaxSessions: number;
    placementIntervalMs: number;
    /** Free devices one placement run locks and considers (a full batch runs again at once). */
    placementBatch: number;
    reaperIntervalMs: number;
    expiryWarningMs: number;
    prepareTimeoutMs: number;
    resetTimeoutMs: number;
    createWaitMs: number;
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** `--data-dir` for SIMFLEET_DATA_DIR, `--database-url` for DATABASE_URL. */
export function flagName(key: string): string {
  return key
    .replace(/^SIMFLEET_/, '')
    .toLowerCase()
    .replaceAll('_', '-');
}

export const GATEWAY_FLAGS: readonly string[] = Object.keys(schema.properties).map(flagName);

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string | undefined> = {}): GatewayConfig {
  const fromFlags: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = flags[flagName(key)];
    if (value !== undefined) fromFlags[key] = value;
  }
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  let raw: Record<Key, unknown>;
  try {
    raw = envSchema({ schema, data: [picked, fromFlags], dotenv: false }) as Record<Key, unknown>;
  } catch (err) {
    throw new ConfigError(describe(err, { ...picked, ...fromFlags }));
  }
  const config: GatewayConfig = {
    port: raw.SIMFLEET_PORT as number,
    host: raw.SIMFLEET_HOST as string,
    dataDir: resolve(raw.SIMFLEET_DATA_DIR as string),
    databaseUrl: raw.DATABASE_URL as string | undefined,
    adminToken: raw.SIMFLEET_ADMIN_TOKEN as string | undefined,
    logLevel: raw.SIMFLEET_LOG_LEVEL as string,
    gatewayId: (raw.SIMFLEET_GATEWAY_ID as string | undefined) ?? `gw-${randomBytes(4).toString('hex')}`,
    heartbeatIntervalMs: raw.SIMFLEET_HEARTBEAT_INTERVAL_MS as number,
    hostTimeoutMs: raw.SIMFLEET_HOST_TIMEOUT_MS as number,
    helloTimeoutMs: raw.SIMFLEET_HELLO_TIMEOUT_MS as number,
    bodyLimitBytes: raw.SIMFLEET_BODY_LIMIT_BYTES as number,
    wsMaxPayloadBytes: raw.SIMFLEET_WS_MAX_PAYLOAD_BYTES as number,
    shutdownTimeoutMs: raw.SIMFLEET_SHUTDOWN_TIMEOUT_MS as number,
    dbPoolSize: raw.SIMFLEET_DB_POOL_SIZE as number,
    webOrigins: {
      allowedOrigins: (raw.SIMFLEET_WEB_ALLOWED_ORIGINS as string)
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      allowPrivate: raw.SIMFLEET_WEB_ALLOW_PRIVATE as boolean,
    },
    sessions: {
      defaultTtlMs: raw.SIMFLEET_SESSION_DEFAULT_TTL_MS as number,
      maxTtlMs: raw.SIMFLEET_SESSION_MAX_TTL_MS as number,
      defaultIdleMs: raw.SIMFLEET_SESSION_DEFAULT_IDLE_MS as number,
      defaultWaitMs: raw.SIMFLEET_QUEUE_DEFAULT_WAIT_MS as number,
      agingMs: raw.SIMFLEET_QUEUE_AGING_MS as number,
      fairnessWindowMs: raw.SIMFLEET_FAIRNESS_WINDOW_MS as number,
      teamMaxSessions: raw.SIMFLEET_TEAM_MAX_SESSIONS as number,
      placementIntervalMs: raw.SIMFLEET_PLACEMENT_INTERVAL_MS as number,
      placementBatch: raw.SIMFLEET_PLACEMENT_BATCH as number,
      reaperIntervalMs: raw.SIMFLEET_REAPER_INTERVAL_MS as number,
      expiryWarningMs: raw.SIMFLEET_EXPIRY_WARNING_MS as number,
      prepareTimeoutMs: raw.SIMFLEET_PREPARE_TIMEOUT_MS as number,
      resetTimeoutMs: raw.SIMFLEET_RESET_TIMEOUT_MS as number,
      createWaitMs: raw.SIMFLEET_CREATE_WAIT_MS as number,
    },
  };
  for (const origin of config.webOrigins.allowedOrigins) {
    if (origin !== '*' && !/^https?:\/\/(\*\.)?[^/*]+$/.test(origin)) {
      throw new ConfigError(`SIMFLEET_WEB_ALLOWED_ORIGINS: "${origin}" is not an origin (scheme://host[:port], optionally scheme://*.domain) or *`);
    }
  }
  if (config.sessions.defaultTtlMs > config.sessions.maxTtlMs) {
    throw new ConfigError(
      `SIMFLEET_SESSION_DEFAULT_TTL_MS (${config.sessions.defaultTtlMs}) is above SIMFLEET_SESSION_MAX_TTL_MS (${config.sessions.maxTtlMs})`,
    );
  }
  if (config.hostTimeoutMs < 2 * config.heartbeatIntervalMs) {
    throw new ConfigError(
      `SIMFLEET_HOST_TIMEOUT_MS (${config.hostTimeoutMs}) must be at least twice SIMFLEET_HEARTBEAT_INTERVAL_MS (${config.heartbeatIntervalMs}), ` +
        'or one late heartbeat marks a healthy host offline',
    );
  }
  return config;
}

/** `flagOf` names the flag that sets a key; the servers' flags are the keys' own names (flagName). */
function describe(err: unknown, given: Record<string, string>, flagOf: (key: string) => string | undefined = flagName): string {
  const errors = (err as { errors?: { instancePath: string; message?: string; params?: { missingProperty?: string } }[] }).errors;
  if (!errors?.length) return `invalid configuration: ${(err as Error).message}`;
  return errors
    .map((e) => {
      const key = e.instancePath.replace(/^\//, '') || e.params?.missingProperty || '?';
      const got = given[key] === undefined ? '' : ` (got ${JSON.stringify(key.includes('TOKEN') ? '<redacted>' : given[key])})`;
      const flag = flagOf(key);
      return `invalid setting ${key}${flag ? ` (flag --${flag})` : ''}: ${e.message ?? 'is invalid'}${got}`;
    })
    .join('\n');
}

const clientSchema = {
  type: 'object',
  properties: {
    SIMFLEET_URL: { type: 'string', pattern: '^https?://' },
    SIMFLEET_GATEWAY_URL: { type: 'string', pattern: '^https?://' },
    SIMFLEET_TOKEN: { type: 'string', minLength: 1 },
    SIMFLEET_ADMIN_TOKEN: schema.properties.SIMFLEET_ADMIN_TOKEN,
    SIMFLEET_PORT: schema.properties.SIMFLEET_PORT,
    SIMFLEET_DATA_DIR: schema.properties.SIMFLEET_DATA_DIR,
  },
} as const;
/** The clients' flags are named for what they are to a client (--gateway), not for the server setting. */
const CLIENT_FLAGS: Record<string, keyof typeof clientSchema.properties> = {
  gateway: 'SIMFLEET_URL',
  token: 'SIMFLEET_TOKEN',
  'admin-token': 'SIMFLEET_ADMIN_TOKEN',
  'data-dir': 'SIMFLEET_DATA_DIR',
};

export interface ClientConfig {
  /** The gateway to call: --gateway, SIMFLEET_URL, SIMFLEET_GATEWAY_URL, else this machine's port. */
  gatewayUrl: string;
  token: string | undefined;
  adminToken: string | undefined;
  /** Where a laptop gateway keeps its admin token file. */
  dataDir: string;
}

/** Settings of the CLI's clients (agent commands, token, mcp): flags first, then the environment. */
export function loadClientConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string | undefined> = {}): ClientConfig {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(clientSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  const fromFlags: Record<string, string> = {};
  for (const [flag, key] of Object.entries(CLIENT_FLAGS)) {
    const value = flags[flag];
    if (value !== undefined) fromFlags[key] = value;
  }
  let raw: Record<string, unknown>;
  try {
    raw = envSchema({ schema: clientSchema, data: [picked, fromFlags], dotenv: false }) as Record<string, unknown>;
  } catch (err) {
    const given = { ...picked, ...fromFlags };
    const flagOf = (key: string) => Object.entries(CLIENT_FLAGS).find(([, k]) => k === key)?.[0];
    throw new ConfigError(describe(err, given, flagOf));
  }
  return {
    gatewayUrl:
      (raw.SIMFLEET_URL as string | undefined) ?? (raw.SIMFLEET_GATEWAY_URL as string | undefined) ?? `http://127.0.0.1:${raw.SIMFLEET_PORT as number}`,
    token: raw.SIMFLEET_TOKEN as string | undefined,
    adminToken: raw.SIMFLEET_ADMIN_TOKEN as string | undefined,
    dataDir: resolve(raw.SIMFLEET_DATA_DIR as string),
  };
}
