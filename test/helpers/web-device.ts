// One real web device (the iPhone 15 profile on a Chromium of its own, showing the sample app),
// started and ready: on its own for tests of the device and perception, or as the one device of an
// in-process farm's worker for tests through the API. Fourteen browser suites began with the same
// five lines.
import { pino } from 'pino';
import type { Worker } from '../../workers/index.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import { PROFILES } from '../../workers/devices/web/profiles.js';
import { WebProvider } from '../../workers/devices/web/provider.js';
import { BROWSER_FARM_ENV, startFarm, type Farm } from './farm.js';
import { waitFor } from './wait.js';

function iphoneProvider(chromium?: string): WebProvider {
  return new WebProvider({ profiles: [PROFILES['iphone-15']!], chromium, logger: pino({ level: 'silent' }) });
}

/**
 * A device boots in Chromium's time, which on 2 cores beside another browser suite has taken over
 * 20 s (a CI run timed out there with the state unknown): wait as long as a hook may, and say where
 * the device was when it did not come up.
 */
async function ready(provider: WebProvider): Promise<WebDevice> {
  const device = provider.device('web-1')!;
  try {
    await waitFor('device ready', () => device.health.state === 'ready' || undefined, 60_000);
  } catch (err) {
    const status = await provider.status().catch((e: unknown) => ({ error: (e as Error).message }));
    throw new Error(`${(err as Error).message}; the device is ${JSON.stringify(device.health)}, the backend ${JSON.stringify(status)}`);
  }
  return device;
}

/**
 * The device on its own; `beforeStart` sees the provider before it starts (to subscribe to it);
 * `chromium` is the browser to run (default: the host's).
 */
export async function webDevice(
  opts: { beforeStart?: (provider: WebProvider) => void; chromium?: string } = {},
): Promise<{ provider: WebProvider; device: WebDevice; sample: string }> {
  const provider = iphoneProvider(opts.chromium);
  opts.beforeStart?.(provider);
  await provider.start();
  return { provider, device: await ready(provider), sample: provider.sampleUrl! };
}

/** An in-process farm (BROWSER_FARM_ENV) with one worker whose one device this is. Stop the farm, then close the provider. */
export async function webFarm(): Promise<{ farm: Farm; provider: WebProvider; worker: Worker }> {
  const farm = await startFarm(BROWSER_FARM_ENV);
  const provider = iphoneProvider();
  const worker = await farm.addWorkerWith([provider]);
  await ready(provider);
  return { farm, provider, worker };
}
