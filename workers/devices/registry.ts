// The one module that knows which backends exist. Adding a platform means adding it here.
import type { Logger } from 'pino';
import type { BackendProvider } from './backend.js';
import { FakeProvider } from './fake/provider.js';
import { parseWebDevices } from './web/profiles.js';
import { WebProvider } from './web/provider.js';

export interface BackendSettings {
  fakeDevices: number;
  fakeOperationMs: number;
  webDevices: string;
  chromium: string | undefined;
}

/** Throws with a message naming what is wrong in the backend settings (called when config loads). */
export function checkBackendSettings(settings: Pick<BackendSettings, 'webDevices'>): void {
  parseWebDevices(settings.webDevices);
}

export function createProviders(settings: BackendSettings, logger: Logger): BackendProvider[] {
  const providers: BackendProvider[] = [];
  const web = parseWebDevices(settings.webDevices);
  if (web.length > 0) providers.push(new WebProvider({ profiles: web, chromium: settings.chromium, logger: logger.child({ backend: 'web' }) }));
  if (settings.fakeDevices > 0) providers.push(new FakeProvider(settings.fakeDevices, { operationMs: settings.fakeOperationMs }));
  return providers;
}
