// The CLI's way to the gateway's REST API: a bearer token, JSON in and out, and errors that carry
// the contract's code, message and hint.
import type { Schemas } from '../../openapi/contract.js';
import { loadClientConfig } from '../config.js';

export interface ClientSettings {
  gatewayUrl: string;
  token: string;
}

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint: string | undefined,
    readonly details: Record<string, unknown> | undefined = undefined,
  ) {
    super(message);
  }
}

export function clientSettings(env: NodeJS.ProcessEnv, flags: Record<string, string | undefined>): ClientSettings | undefined {
  const { gatewayUrl, token } = loadClientConfig(env, flags);
  return token ? { gatewayUrl, token } : undefined;
}

export async function call<T>(s: ClientSettings, method: string, path: string, body?: unknown, accept = 'application/json'): Promise<T> {
  const res = await fetch(new URL(path, s.gatewayUrl), {
    method,
    headers: { authorization: `Bearer ${s.token}`, accept, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  }).catch((err: Error) => {
    throw new GatewayError(
      0,
      'UNREACHABLE',
      `cannot reach the gateway at ${s.gatewayUrl}: ${err.message}`,
      'is it running? --gateway or SIMFLEET_GATEWAY_URL names it',
    );
  });
  const json = (await res.json().catch(() => ({}))) as T & Partial<Schemas['Error']>;
  if (!res.ok)
    throw new GatewayError(res.status, json.error?.code ?? String(res.status), json.error?.message ?? res.statusText, json.error?.hint, json.error?.details);
  return json as T;
}
