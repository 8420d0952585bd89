// `simfleet token create|list|revoke`: a client of the REST API, so it works against a running
// laptop gateway (whose embedded database only that process may open) as well as a farm.
// create prints the secret alone on stdout, so `T=$(simfleet token create ...)` works.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadClientConfig } from '../config.js';
import type { Schemas } from '../../openapi/contract.js';
import { UsageError } from './args.js';
import { GatewayError, unreachable } from './gateway-client.js';

export interface TokenClientSettings {
  gatewayUrl: string;
  adminToken: string | undefined;
  dataDir: string;
}

/** The client's settings: flags first, then the environment, then the laptop defaults. */
export function tokenClientSettings(env: NodeJS.ProcessEnv, flags: Record<string, string | undefined>): TokenClientSettings {
  const { gatewayUrl, adminToken, dataDir } = loadClientConfig(env, flags);
  return { gatewayUrl, adminToken, dataDir };
}

export async function runToken(action: string | undefined, args: string[], flags: Record<string, string | undefined>, s: TokenClientSettings): Promise<void> {
  const token = s.adminToken ?? (await readFile(join(s.dataDir, 'admin-token'), 'utf8').catch(() => '')).trim();
  if (!token) throw new UsageError(`no admin token: pass --admin-token, set SIMFLEET_ADMIN_TOKEN, or run where ${join(s.dataDir, 'admin-token')} exists`);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(path, s.gatewayUrl), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).catch((err: Error) => {
      throw unreachable(s.gatewayUrl, err);
    });
    const json = (await res.json().catch(() => ({}))) as T & Partial<Schemas['Error']>;
    if (!res.ok) throw new GatewayError(res.status, json.error?.code ?? String(res.status), json.error?.message ?? res.statusText, json.error?.hint);
    return json;
  };
  switch (action) {
    case 'create': {
      const { role, team = 'default', name } = flags;
      if (!role || !name) throw new UsageError('token create needs --role (admin|agent|viewer|worker) and --name (and optionally --team)');
      const created = await call<Schemas['TokenCreated']>('POST', '/v1/tokens', { role, team, name });
      process.stderr.write(`created ${created.token.id} (${created.token.role}, team ${created.token.team}); the secret below is shown once\n`);
      process.stdout.write(`${created.secret}\n`);
      return;
    }
    case 'list': {
      const { tokens } = await call<Schemas['TokenList']>('GET', '/v1/tokens?includeRevoked=true');
      for (const t of tokens) {
        process.stdout.write(`${t.id}\t${t.role}\t${t.team}\t${t.revokedAt ? `revoked ${t.revokedAt}` : 'active'}\t${t.name}\n`);
      }
      return;
    }
    case 'revoke': {
      const id = args[0];
      if (!id) throw new UsageError('token revoke needs the token id (see `simfleet token list`)');
      const revoked = await call<Schemas['Token']>('DELETE', `/v1/tokens/${encodeURIComponent(id)}`);
      process.stdout.write(`revoked ${revoked.id} at ${revoked.revokedAt}\n`);
      return;
    }
    default:
      throw new UsageError('usage: simfleet token create --role R --name N [--team T] | token list | token revoke ID');
  }
}
