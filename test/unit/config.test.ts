import { describe, expect, it } from 'vitest';
import { ConfigError, loadClientConfig, loadGatewayConfig } from '../../server/config.js';
import { WorkerConfigError, loadWorkerConfig } from '../../workers/config.js';

describe('gateway configuration', () => {
  it('has the documented defaults', () => {
    const c = loadGatewayConfig({});
    expect(c).toMatchObject({ port: 7420, host: '127.0.0.1', databaseUrl: undefined, heartbeatIntervalMs: 5000, hostTimeoutMs: 30000, logLevel: 'info' });
    expect(c.dataDir).toMatch(/\.simfleet$/);
    expect(c.gatewayId).toMatch(/^gw-[0-9a-f]{8}$/);
  });

  it('leases a device for 15 minutes by default, for at most 4 h unless configured otherwise', () => {
    expect(loadGatewayConfig({}).sessions).toMatchObject({ defaultTtlMs: 900_000, maxTtlMs: 14_400_000, defaultIdleMs: 300_000 });
    expect(loadGatewayConfig({ SIMFLEET_SESSION_MAX_TTL_MS: '28800000' }).sessions.maxTtlMs).toBe(28_800_000);
    expect(loadGatewayConfig({}, { 'session-max-ttl-ms': '3600000' }).sessions.maxTtlMs).toBe(3_600_000);
    // A maximum below the default TTL would refuse every request that leaves the TTL out.
    expect(() => loadGatewayConfig({ SIMFLEET_SESSION_MAX_TTL_MS: '600000' })).toThrow(
      'SIMFLEET_SESSION_DEFAULT_TTL_MS (900000) is above SIMFLEET_SESSION_MAX_TTL_MS (600000)',
    );
  });

  it('reads the environment and lets flags win', () => {
    const c = loadGatewayConfig({ SIMFLEET_PORT: '8000', DATABASE_URL: 'postgres://x@h/db' }, { port: '9000', 'host-timeout-ms': '60000' });
    expect(c).toMatchObject({ port: 9000, databaseUrl: 'postgres://x@h/db', hostTimeoutMs: 60000 });
  });

  it('names the bad setting, its flag and the value', () => {
    expect(() => loadGatewayConfig({ SIMFLEET_PORT: '99999' })).toThrow('invalid setting SIMFLEET_PORT (flag --port): must be <= 65535 (got "99999")');
    expect(() => loadGatewayConfig({ SIMFLEET_PORT: 'http' })).toThrow(/SIMFLEET_PORT .* must be integer/);
    expect(() => loadGatewayConfig({ DATABASE_URL: 'mysql://nope' })).toThrow(/DATABASE_URL \(flag --database-url\)/);
    expect(() => loadGatewayConfig({ SIMFLEET_LOG_LEVEL: 'loud' })).toThrow(ConfigError);
  });

  it('never echoes a token it refuses', () => {
    try {
      loadGatewayConfig({ SIMFLEET_ADMIN_TOKEN: 'short secret!' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('SIMFLEET_ADMIN_TOKEN');
      expect((err as Error).message).not.toContain('short secret');
    }
  });

  it('refuses a host timeout shorter than two heartbeats', () => {
    expect(() => loadGatewayConfig({ SIMFLEET_HEARTBEAT_INTERVAL_MS: '5000', SIMFLEET_HOST_TIMEOUT_MS: '6000' })).toThrow(/at least twice/);
  });
});

describe('worker configuration', () => {
  it('maps --gateway and --token to their settings', () => {
    const c = loadWorkerConfig({}, { gateway: 'http://gw:7420', token: 'sf_abcdefghijklmnopqrstuvwxyz', 'fake-devices': '4' });
    expect(c).toMatchObject({ gatewayUrl: 'http://gw:7420', token: 'sf_abcdefghijklmnopqrstuvwxyz', fakeDevices: 4 });
  });

  it('names a bad gateway URL', () => {
    expect(() => loadWorkerConfig({ SIMFLEET_GATEWAY_URL: 'gw:7420' })).toThrow('invalid setting SIMFLEET_GATEWAY_URL (flag --gateway)');
    expect(() => loadWorkerConfig({}, { 'reconnect-min-ms': '5000', 'reconnect-max-ms': '100' })).toThrow(WorkerConfigError);
  });
});

describe("the CLI clients' configuration (from the same module as the gateway's)", () => {
  it("defaults to this machine's gateway and data dir, takes the environment, and lets flags win", () => {
    expect(loadClientConfig({})).toMatchObject({ gatewayUrl: 'http://127.0.0.1:7420', token: undefined, adminToken: undefined });
    expect(loadClientConfig({}).dataDir).toMatch(/\.simfleet$/);
    expect(loadClientConfig({ SIMFLEET_PORT: '8123' }).gatewayUrl).toBe('http://127.0.0.1:8123');
    expect(loadClientConfig({ SIMFLEET_GATEWAY_URL: 'http://farm:7420', SIMFLEET_TOKEN: 't' })).toMatchObject({ gatewayUrl: 'http://farm:7420', token: 't' });
    expect(
      loadClientConfig({ SIMFLEET_URL: 'http://a:1', SIMFLEET_GATEWAY_URL: 'http://b:2', SIMFLEET_TOKEN: 'env' }, { gateway: 'https://c', token: 'flag' }),
    ).toMatchObject({ gatewayUrl: 'https://c', token: 'flag' });
  });

  it('names a bad setting and its flag', () => {
    expect(() => loadClientConfig({ SIMFLEET_URL: 'farm:7420' })).toThrow('invalid setting SIMFLEET_URL (flag --gateway)');
    expect(() => loadClientConfig({ SIMFLEET_PORT: 'seventy' })).toThrow(ConfigError);
    expect(() => loadClientConfig({}, { gateway: 'ftp://x' })).toThrow(/SIMFLEET_URL \(flag --gateway\).*got "ftp:\/\/x"/);
    // A client has no flag for these: none is named (not the servers' --gateway-url or --port).
    expect(() => loadClientConfig({ SIMFLEET_GATEWAY_URL: 'farm:7420' })).toThrow(/^invalid setting SIMFLEET_GATEWAY_URL: must match/);
    expect(() => loadClientConfig({ SIMFLEET_PORT: 'seventy' })).toThrow(/^invalid setting SIMFLEET_PORT: must be integer/);
  });
});
