// The worker's end of its gateway connection, over in-memory socket pairs with a scripted gateway:
// a gateway that stops acknowledging heartbeats is redialled, but a worker that was itself stopped
// (a heap snapshot, a starved CPU) does not take its own pause for the gateway's silence.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../openapi/contract.js';
import { createSocketPair } from '../../server/hub/memory-socket.js';
import { Backoff } from '../../workers/connection/backoff.js';
import { GatewayLink } from '../../workers/connection/gateway-link.js';
import type { GatewaySocket } from '../../workers/connection/socket.js';
import type { Inventory } from '../../workers/devices/inventory.js';
import { blockFor, sleep, waitFor } from '../helpers/wait.js';

let link: GatewayLink | undefined;
afterEach(async () => {
  await link?.stop();
  link = undefined;
});

/** A link to a scripted gateway that welcomes it and acknowledges heartbeats while `acking` is on. */
function scripted(devices: unknown[] = []) {
  const state = { dials: 0, beats: 0, acking: true, closes: [] as number[], hellos: [] as Record<string, unknown>[] };
  const inventory = { snapshot: async () => ({ backends: [], devices }), onChange: () => () => undefined } as unknown as Inventory;
  link = new GatewayLink({
    dial: async () => {
      state.dials++;
      const [gatewayEnd, workerEnd] = createSocketPair();
      gatewayEnd.on('message', (d: Buffer) => {
        const msg = JSON.parse(d.toString()) as { type: string; seq?: number };
        if (msg.type === 'hello') state.hellos.push(msg);
        if (msg.type === 'hello')
          gatewayEnd.send(
            JSON.stringify({
              type: 'welcome',
              protocolVersion: PROTOCOL_VERSION,
              hostId: 'host-1',
              gatewayId: 'gw',
              heartbeatIntervalMs: 100,
              hostTimeoutMs: 600,
            }),
          );
        if (msg.type === 'heartbeat') {
          state.beats++;
          if (state.acking) gatewayEnd.send(JSON.stringify({ type: 'heartbeat-ack', seq: msg.seq }));
        }
      });
      gatewayEnd.on('close', (code: number) => state.closes.push(code));
      return workerEnd as unknown as GatewaySocket;
    },
    commands: async () => undefined,
    identity: { id: 'host-1', name: 'host-1', os: 'linux', arch: 'x64', version: 't' },
    inventory,
    backoff: new Backoff(20, 50),
    logger: pino({ level: 'silent' }),
  });
  link.start();
  return state;
}

describe('the worker watching its gateway', () => {
  it('redials a gateway that stops acknowledging its heartbeats', async () => {
    const state = scripted();
    await waitFor('acknowledged', () => state.beats >= 3 || undefined, 3000, 5);
    state.acking = false;
    await waitFor('redialled', () => state.dials >= 2 || undefined, 3000, 5);
    expect(state.closes.length).toBeGreaterThanOrEqual(1);
  });

  it('does not count its own pause as the gateway going silent', async () => {
    const state = scripted();
    await waitFor('acknowledged', () => state.beats >= 3 || undefined, 3000, 5);
    // Stopped for longer than the worker waits for an acknowledgement (300 ms here), as a heap
    // snapshot stops a worker of twenty devices: the next heartbeat timer runs before any read.
    blockFor(800);
    const beatsBefore = state.beats;
    await sleep(500); // real time: what is tested is the event loop itself stopped, which no virtual clock stages
    expect(state.dials).toBe(1);
    expect(state.closes).toEqual([]);
    expect(state.beats).toBeGreaterThan(beatsBefore); // and it went on beating on the same connection
  });

  it('reports its devices with names the gateway can store (a NUL or half an emoji from simctl or adb)', async () => {
    const named = (name: string) => ({
      localId: 'd1',
      platform: 'ios',
      backend: 'ios',
      model: 'iPhone 15',
      os: 'iOS 17.4',
      name,
      labels: [`team \u0000${'📱'.charAt(0)}`],
      health: 'ready',
    });
    const state = scripted([named(`Bob's \u0000iPhone 📱${'📱'.charAt(0)}`)]);
    await waitFor('hello', () => state.hellos[0] ?? undefined, 3000, 5);
    const [device] = state.hellos[0]!.devices as { name: string; labels: string[] }[];
    expect(device!.name).toBe("Bob's iPhone 📱\uFFFD");
    expect(device!.labels).toEqual(['team \uFFFD']);
  });
});
