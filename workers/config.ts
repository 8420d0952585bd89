// The worker's configuration: the only worker module that reads the environment or flags.
// Each setting has an environment name and a flag; flags win. Units are in the names.
import { resolve } from 'node:path';
import envSchema from 'env-schema';
import { checkBackendSettings, type BackendSettings } from './devices/registry.js';

const schema = {
  type: 'object',
  properties: {
    SIMFLEET_GATEWAY_URL: { type: 'string', pattern: '^(http|https|ws|wss)://' },
    SIMFLEET_WORKER_TOKEN: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,200}$' },
    SIMFLEET_DATA_DIR: { type: 'string', minLength: 1, default: './.simfleet' },
    SIMFLEET_HOST_ID: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{2,62}$' },
    SIMFLEET_HOST_NAME: { type: 'string', minLength: 1, maxLength: 200 },
    SIMFLEET_WEB_DEVICES: { type: 'string', maxLength: 2000, default: 'iphone-15', pattern: '^(none|[a-z0-9-]+(:[0-9]+)?(,[a-z0-9-]+(:[0-9]+)?)*)?$' },
    SIMFLEET_CHROMIUM: { type: 'string', minLength: 1 },
    SIMFLEET_ADB: { type: 'string', minLength: 1, maxLength: 500, default: 'auto' },
    SIMFLEET_EMULATOR_TOKEN_FILE: { type: 'string', minLength: 1, maxLength: 500 },
    SIMFLEET_ANDROID_RESET: { type: 'string', pattern: '^(clear|snapshot:[A-Za-z0-9._-]{1,100})$', default: 'clear' },
    SIMFLEET_ANDROID_APK_DIR: { type: 'string', minLength: 1, maxLength: 500 },
    SIMFLEET_XCRUN: { type: 'string', minLength: 1, maxLength: 500, default: 'auto' },
    SIMFLEET_IOS_UI_TOOL: { type: 'string', enum: ['auto', 'axe', 'idb'], default: 'auto' },
    SIMFLEET_IOS_UI_TOOL_PATH: { type: 'string', minLength: 1, maxLength: 500 },
    SIMFLEET_IOS_FRAME_HELPER: { type: 'string', minLength: 1, maxLength: 500 },
    SIMFLEET_IOS_RESET: { type: 'string', enum: ['erase', 'reinstall'], default: 'erase' },
    SIMFLEET_FAKE_DEVICES: { type: 'integer', minimum: 0, maximum: 512, default: 0 },
    SIMFLEET_FRAME_RETENTION_MS: { type: 'integer', minimum: 1000, maximum: 3600000, default: 60000 },
    SIMFLEET_FRAME_BUDGET_BYTES: { type: 'integer', minimum: 1048576, maximum: 4294967296, default: 67108864 },
    SIMFLEET_QUIET_MS: { type: 'integer', minimum: 50, maximum: 5000, default: 250 },
    SIMFLEET_TESSERACT: { type: 'string', minLength: 1, maxLength: 500, default: 'tesseract' },
    SIMFLEET_EVENT_LOG_EVENTS: { type: 'integer', minimum: 1, maximum: 100000, default: 2000 },
    SIMFLEET_EVENT_LOG_MS: { type: 'integer', minimum: 1000, maximum: 3600000, default: 300000 },
    SIMFLEET_FAKE_OPERATION_MS: { type: 'integer', minimum: 0, maximum: 600000, default: 5 },
    SIMFLEET_DEVICE_OP_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 3600000, default: 120000 },
    SIMFLEET_RECONNECT_MIN_MS: { type: 'integer', minimum: 10, maximum: 600000, default: 500 },
    SIMFLEET_RECONNECT_MAX_MS: { type: 'integer', minimum: 10, maximum: 600000, default: 10000 },
    SIMFLEET_WS_MAX_PAYLOAD_BYTES: { type: 'integer', minimum: 1024, maximum: 104857600, default: 1048576 },
    SIMFLEET_LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
  },
} as const;

type Key = keyof typeof schema.properties;

/** Flag for each setting; --gateway and --token are the short names the CLI documents. */
export const WORKER_FLAGS: Readonly<Record<string, Key>> = {
  gateway: 'SIMFLEET_GATEWAY_URL',
  token: 'SIMFLEET_WORKER_TOKEN',
  'data-dir': 'SIMFLEET_DATA_DIR',
  'host-id': 'SIMFLEET_HOST_ID',
  'host-name': 'SIMFLEET_HOST_NAME',
  'web-devices': 'SIMFLEET_WEB_DEVICES',
  chromium: 'SIMFLEET_CHROMIUM',
  adb: 'SIMFLEET_ADB',
  'emulator-token-file': 'SIMFLEET_EMULATOR_TOKEN_FILE',
  'android-reset': 'SIMFLEET_ANDROID_RESET',
  'android-apk-dir': 'SIMFLEET_ANDROID_APK_DIR',
  xcrun: 'SIMFLEET_XCRUN',
  'ios-ui-tool': 'SIMFLEET_IOS_UI_TOOL',
  'ios-ui-tool-path': 'SIMFLEET_IOS_UI_TOOL_PATH',
  'ios-frame-helper': 'SIMFLEET_IOS_FRAME_HELPER',
  'ios-reset': 'SIMFLEET_IOS_RESET',
  'fake-devices': 'SIMFLEET_FAKE_DEVICES',
  'frame-retention-ms': 'SIMFLEET_FRAME_RETENTION_MS',
  'frame-budget-bytes': 'SIMFLEET_FRAME_BUDGET_BYTES',
  'quiet-ms': 'SIMFLEET_QUIET_MS',
  tesseract: 'SIMFLEET_TESSERACT',
  'event-log-events': 'SIMFLEET_EVENT_LOG_EVENTS',
  'event-log-ms': 'SIMFLEET_EVENT_LOG_MS',
  'fake-operation-ms': 'SIMFLEET_FAKE_OPERATION_MS',
  'device-op-timeout-ms': 'SIMFLEET_DEVICE_OP_TIMEOUT_MS',
  'reconnect-min-ms': 'SIMFLEET_RECONNECT_MIN_MS',
  'reconnect-max-ms': 'SIMFLEET_RECONNECT_MAX_MS',
  'ws-max-payload-bytes': 'SIMFLEET_WS_MAX_PAYLOAD_BYTES',
  'log-level': 'SIMFLEET_LOG_LEVEL',
};

/** The backends' settings are declared once, where the backends are built (devices/registry.ts). */
export interface WorkerConfig extends BackendSettings {
  gatewayUrl: string | undefined;
  token: string | undefined;
  dataDir: string;
  hostId: string | undefined;
  hostName: string | undefined;
  frameRetentionMs: number;
  frameBudgetBytes: number;
  quietMs: number;
  /** The text recognition engine's binary ("none": read the tree alone). */
  tesseract: string;
  /** Device events kept per lease for streams to resume from, at most this many and this long. */
  eventLogEvents: number;
  eventLogMs: number;
  deviceOpTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  wsMaxPayloadBytes: number;
  logLevel: string;
}

export class WorkerConfigError extends Error {
  override readonly name = 'WorkerConfigError';
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string | undefined> = {}): WorkerConfig {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  for (const [flag, key] of Object.entries(WORKER_FLAGS)) {
    const value = flags[flag];
    if (value !== undefined) picked[key] = value;
  }
  let raw: Record<Key, unknown>;
  try {
    raw = envSchema({ schema, data: [picked], dotenv: false }) as Record<Key, unknown>;
  } catch (err) {
    const errors = (err as { errors?: { instancePath: string; message?: string }[] }).errors ?? [];
    const flagOf = (key: string) => Object.entries(WORKER_FLAGS).find(([, k]) => k === key)?.[0] ?? '?';
    throw new WorkerConfigError(
      errors
        .map((e) => {
          const key = e.instancePath.replace(/^\//, '');
          const shown = key.includes('TOKEN') ? '<redacted>' : picked[key];
          return `invalid setting ${key} (flag --${flagOf(key)}): ${e.message ?? 'is invalid'}${shown === undefined ? '' : ` (got ${JSON.stringify(shown)})`}`;
        })
        .join('\n') || (err as Error).message,
    );
  }
  const config: WorkerConfig = {
    gatewayUrl: raw.SIMFLEET_GATEWAY_URL as string | undefined,
    token: raw.SIMFLEET_WORKER_TOKEN as string | undefined,
    dataDir: resolve(raw.SIMFLEET_DATA_DIR as string),
    hostId: raw.SIMFLEET_HOST_ID as string | undefined,
    hostName: raw.SIMFLEET_HOST_NAME as string | undefined,
    webDevices: raw.SIMFLEET_WEB_DEVICES as string,
    chromium: raw.SIMFLEET_CHROMIUM as string | undefined,
    adb: raw.SIMFLEET_ADB as string,
    emulatorTokenFile: raw.SIMFLEET_EMULATOR_TOKEN_FILE as string | undefined,
    androidReset: raw.SIMFLEET_ANDROID_RESET as WorkerConfig['androidReset'],
    androidApkDir: raw.SIMFLEET_ANDROID_APK_DIR === undefined ? undefined : resolve(raw.SIMFLEET_ANDROID_APK_DIR as string),
    xcrun: raw.SIMFLEET_XCRUN as string,
    iosUiTool: raw.SIMFLEET_IOS_UI_TOOL as WorkerConfig['iosUiTool'],
    iosUiToolPath: raw.SIMFLEET_IOS_UI_TOOL_PATH as string | undefined,
    iosFrameHelper: raw.SIMFLEET_IOS_FRAME_HELPER as string | undefined,
    iosReset: raw.SIMFLEET_IOS_RESET as WorkerConfig['iosReset'],
    fakeDevices: raw.SIMFLEET_FAKE_DEVICES as number,
    frameRetentionMs: raw.SIMFLEET_FRAME_RETENTION_MS as number,
    frameBudgetBytes: raw.SIMFLEET_FRAME_BUDGET_BYTES as number,
    quietMs: raw.SIMFLEET_QUIET_MS as number,
    tesseract: raw.SIMFLEET_TESSERACT as string,
    eventLogEvents: raw.SIMFLEET_EVENT_LOG_EVENTS as number,
    eventLogMs: raw.SIMFLEET_EVENT_LOG_MS as number,
    fakeOperationMs: raw.SIMFLEET_FAKE_OPERATION_MS as number,
    deviceOpTimeoutMs: raw.SIMFLEET_DEVICE_OP_TIMEOUT_MS as number,
    reconnectMinMs: raw.SIMFLEET_RECONNECT_MIN_MS as number,
    reconnectMaxMs: raw.SIMFLEET_RECONNECT_MAX_MS as number,
    wsMaxPayloadBytes: raw.SIMFLEET_WS_MAX_PAYLOAD_BYTES as number,
    logLevel: raw.SIMFLEET_LOG_LEVEL as string,
  };
  try {
    checkBackendSettings(config);
  } catch (err) {
    throw new WorkerConfigError(`invalid setting SIMFLEET_WEB_DEVICES (flag --web-devices): ${(err as Error).message}`);
  }
  if (config.reconnectMaxMs < config.reconnectMinMs) {
    throw new WorkerConfigError(`SIMFLEET_RECONNECT_MAX_MS (${config.reconnectMaxMs}) is below SIMFLEET_RECONNECT_MIN_MS (${config.reconnectMinMs})`);
  }
  return config;
}
