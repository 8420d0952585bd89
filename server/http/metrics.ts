// Prometheus metrics. Farm-wide gauges are read from Postgres at scrape time, so every gateway
// reports the same truth; a gauge that cannot be read is left out rather than reported as zero.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queryable } from '../db/database.js';
import { countDevicesByState } from '../db/repositories/devices.js';
import { countHostsByState } from '../db/repositories/hosts.js';

export interface GatewayMetrics {
  registry: Registry;
  protocolErrors: Counter<'code'>;
}

const HOST_STATES = ['online', 'offline'];
const DEVICE_STATES = ['available', 'leased', 'preparing', 'reclaiming', 'broken', 'offline'];
const PLATFORMS = ['web', 'android', 'ios'];

export function createMetrics(db: Queryable, workerConnections: () => number, logger: Logger): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'simfleet_hosts',
    help: 'Hosts by state, farm-wide (from Postgres)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await countHostsByState(db);
        for (const state of HOST_STATES) this.set({ state }, rows.find((r) => r.state === state)?.n ?? 0);
      } catch (err) {
        logger.warn({ err }, 'could not read host counts for /metrics');
      }
    },
  });
  new Gauge({
    name: 'simfleet_devices',
    help: 'Devices by state and platform, farm-wide (from Postgres)',
    labelNames: ['state', 'platform'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const rows = await countDevicesByState(db);
        for (const state of DEVICE_STATES) {
          for (const platform of PLATFORMS) this.set({ state, platform }, rows.find((r) => r.state === state && r.platform === platform)?.n ?? 0);
        }
      } catch (err) {
        logger.warn({ err }, 'could not read device counts for /metrics');
      }
    },
  });
  new Gauge({
    name: 'simfleet_worker_connections',
    help: 'Worker connections held by this gateway',
    registers: [registry],
    collect() {
      this.set(workerConnections());
    },
  });
  const protocolErrors = new Counter({
    name: 'simfleet_worker_protocol_errors_total',
    help: 'Worker connections closed by this gateway, by error code',
    labelNames: ['code'],
    registers: [registry],
  });
  return { registry, protocolErrors };
}

export function installHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'simfleet_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    duration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}
