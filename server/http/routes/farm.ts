import type { FastifyInstance } from 'fastify';
import * as devices from '../../db/repositories/devices.js';
import * as hosts from '../../db/repositories/hosts.js';
import { ApiError } from '../../errors.js';
import { principalOf } from '../auth.js';
import { contractRoute } from '../contract-route.js';
import { presentDevice, presentHost } from '../present.js';
import type { GatewayServices } from '../services.js';

export function farmRoutes(app: FastifyInstance, s: GatewayServices): void {
  contractRoute(app, 'listHosts', async (req) => ({
    hosts: (await hosts.listHosts(s.db, { state: req.query.state })).map(presentHost),
  }));

  contractRoute(app, 'getHost', async (req) => {
    const row = await hosts.getHost(s.db, req.params.hostId);
    if (!row) throw new ApiError('NOT_FOUND', { message: `no host ${req.params.hostId}`, hint: 'GET /v1/hosts lists the hosts the farm has seen' });
    return presentHost(row);
  });

  contractRoute(app, 'listDevices', async (req) => ({
    devices: (await devices.listDevices(s.db, req.query)).map(presentDevice),
  }));

  contractRoute(app, 'getDevice', async (req) => {
    const row = await devices.getDevice(s.db, req.params.deviceId);
    if (!row) throw new ApiError('NOT_FOUND', { message: `no device ${req.params.deviceId}`, hint: 'GET /v1/devices lists the devices the farm has seen' });
    return presentDevice(row);
  });

  contractRoute(app, 'resetDevice', async (req, reply) => {
    await s.sessions.resetDevice(principalOf(req), req.params.deviceId);
    reply.code(202);
    return presentDevice((await devices.getDevice(s.db, req.params.deviceId))!);
  });
}
