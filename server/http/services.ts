// What route handlers may call: the gateway's domain objects, handed to each route module.
import type { MemoryService } from '../domain/memory.js';
import type { Schemas } from '../../openapi/contract.js';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { SessionEvents } from '../domain/sessions/events.js';
import type { DeviceTaps } from '../domain/streams/device-tap.js';
import type { Acting } from '../domain/flows/acting.js';
import type { FlowService } from '../domain/flows/service.js';
import type { SessionPerception } from '../domain/sessions/perception.js';
import type { SessionService } from '../domain/sessions/service.js';
import type { TokenService } from '../domain/tokens.js';
import type { WorkerHub } from '../hub/hub.js';
import type { Timers } from '../timers.js';
import type { GatewayMetrics } from './metrics.js';

export interface GatewayServices {
  version: string;
  gatewayId: string;
  startedAt: number;
  db: Database;
  tokens: TokenService;
  hub: WorkerHub;
  sessions: SessionService;
  perception: SessionPerception;
  flows: FlowService;
  acting: Acting;
  memory: MemoryService;
  events: SessionEvents;
  taps: DeviceTaps;
  logger: Logger;
  metrics: GatewayMetrics;
  /** The gateway's own timers (stream pings); the system's unless a test gives virtual ones. */
  timers: Timers;
  readiness(): Promise<Schemas['Readiness']>;
}
