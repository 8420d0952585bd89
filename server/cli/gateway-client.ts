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

/** A gateway that did not answer at all: one clean line and a hint, never a stack trace. */
export function unreachable(gatewayUrl: string, err: Error): GatewayError {
  // fetch says only "fetch failed"; the cause says which (ECONNREFUSED, ENOTFOUND, ...).
  const inner = err.cause as { code?: string; message?: string } | undefined;
  const cause = inner?.code ?? inner?.message ?? err.message;
  return new GatewayError(
    0,
    'UNREACHABLE',
    `cannot reach the gateway at ${gatewayUrl} (${cause})`,
    'is it running (npm start, simfleet start)? --gateway or SIMFLEET_URL names another one',
  );
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
    throw unreachable(s.gatewayUrl, err);
  });
  const json = (await res.json().catch(() => ({}))) as T & Partial<Schemas['Error']>;
  if (!res.ok)
    throw new GatewayError(res.status, json.error?.code ?? String(res.status), json.error?.message ?? res.statusText, json.error?.hint, json.error?.details);
  return json as T;
}
