// The one module that knows which backends exist. Adding a platform means adding it here.
import type { BackendProvider } from './backend.js';
import { FakeProvider } from './fake/provider.js';

export interface BackendSettings {
  fakeDevices: number;
  fakeOperationMs: number;
}

export function createProviders(settings: BackendSettings): BackendProvider[] {
  const providers: BackendProvider[] = [];
  if (settings.fakeDevices > 0) providers.push(new FakeProvider(settings.fakeDevices, { operationMs: settings.fakeOperationMs }));
  return providers;
}
