// The gateway's first look at a web session's app URL, so that a refused page answers 403 at
// create rather than a failed session later: the allow-list, and addresses written literally
// (private, loopback, link-local, metadata, localhost). Names are resolved by the worker that will
// load them (workers/devices/origin-policy.ts), which applies the same rules again.
import { BlockList, isIP } from 'node:net';
import type { Schemas } from '../../../openapi/contract.js';
import { ApiError } from '../../errors.js';

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

function named(url: URL, pattern: string): boolean {
  if (pattern === '*') return false;
  const wildcard = pattern.includes('://*.');
  const p = new URL(pattern.replace('://*.', '://wildcard.'));
  if (p.protocol !== url.protocol || p.port !== url.port) return false;
  if (!wildcard) return p.hostname === url.hostname;
  const suffix = p.hostname.slice('wildcard'.length);
  return url.hostname.endsWith(suffix) && url.hostname.length > suffix.length;
}

export function checkAppUrl(raw: string, rules: Schemas['OriginRules']): void {
  const refuse = (message: string) => new ApiError('ORIGIN_NOT_ALLOWED', { message, details: { in: 'body', field: 'app.url', url: raw } });
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`a web device opens http and https pages, not ${url.protocol}`);
  const isNamed = rules.allowedOrigins.some((p) => named(url, p));
  if (!isNamed && !rules.allowedOrigins.includes('*')) throw refuse(`${url.origin} is not in the farm's allowed origins`);
  if (isNamed || rules.allowPrivate) return;
  // A trailing dot names the same host ("localhost." is localhost): found by a test of other spellings.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const family = isIP(host);
  if (host === 'localhost' || host.endsWith('.localhost') || (family === 4 && PRIVATE.check(host, 'ipv4')) || (family === 6 && PRIVATE.check(host, 'ipv6'))) {
    throw refuse(`${url.origin} is a private, loopback, link-local or metadata address`);
  }
}
