// Which pages a web device may load. The farm's rules (from the gateway, with each prepare) list
// the allowed origins; private, loopback, link-local and cloud-metadata addresses are refused unless
// an origin naming them is listed (or private addresses are allowed outright). Names are resolved
// here, on the host that will load them, so a public name pointing at 169.254.169.254 is refused
// too. The sample app this worker serves is always allowed.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DeviceError } from './backend.js';

export interface OriginRules {
  /** Origins (`https://example.com`, `https://*.example.com`, `http://localhost:3000`) or `*` for any public origin. */
  allowedOrigins: string[];
  allowPrivate: boolean;
}

export const DEFAULT_RULES: OriginRules = { allowedOrigins: ['*'], allowPrivate: false };

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT; also Alibaba's metadata address 100.100.100.200
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, and the AWS/GCP/Azure metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::1', 128],
  ['::', 128],
  ['fc00::', 7], // unique local, including AWS's fd00:ec2::254
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? PRIVATE.check(mapped[1]!, 'ipv4') : PRIVATE.check(address, 'ipv6');
  }
  return false;
}

function matchesOrigin(origin: URL, pattern: string): boolean {
  if (pattern === '*') return false; // "any public origin" never counts as naming a private one
  let p: URL;
  try {
    p = new URL(pattern.replace('://*.', '://wildcard.'));
  } catch {
    return false;
  }
  if (p.protocol !== origin.protocol || p.port !== origin.port) return false;
  if (pattern.includes('://*.')) {
    const suffix = p.hostname.slice('wildcard'.length);
    return origin.hostname.endsWith(suffix) && origin.hostname.length > suffix.length;
  }
  return p.hostname === origin.hostname;
}

export class OriginPolicy {
  private readonly cache = new Map<string, { at: number; verdict: string | null }>();

  constructor(
    private rules: OriginRules,
    private readonly alwaysAllowed: string[],
    private readonly resolve: (host: string) => Promise<string[]> = async (host) => (await lookup(host, { all: true })).map((a) => a.address),
  ) {}

  use(rules: OriginRules): void {
    this.rules = rules;
    this.cache.clear();
  }

  /** Throws ORIGIN_NOT_ALLOWED (or APP_UNREACHABLE for a name that does not resolve). */
  async check(raw: string): Promise<void> {
    const verdict = await this.verdict(raw);
    if (!verdict) return;
    // A name that does not resolve is a typo or a host without DNS, never a matter of the farm's rules.
    if (verdict.startsWith('cannot resolve'))
      throw new DeviceError('APP_UNREACHABLE', verdict, "check the host name, and that the device's host can resolve names and reach the internet");
    throw new DeviceError('ORIGIN_NOT_ALLOWED', verdict, 'the farm admin sets SIMFLEET_WEB_ALLOWED_ORIGINS (and SIMFLEET_WEB_ALLOW_PRIVATE) on the gateway');
  }

  /** null when allowed; otherwise why not. Cached per origin for 30 s. */
  async verdict(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return `${JSON.stringify(raw)} is not a URL`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https pages may be opened, not ${url.protocol}`;
    if (this.alwaysAllowed.includes(url.origin)) return null;
    const cached = this.cache.get(url.origin);
    if (cached && Date.now() - cached.at < 30_000) return cached.verdict;
    const verdict = await this.decide(url);
    this.cache.set(url.origin, { at: Date.now(), verdict });
    return verdict;
  }

  private async decide(url: URL): Promise<string | null> {
    const named = this.rules.allowedOrigins.some((p) => matchesOrigin(url, p));
    if (!named && !this.rules.allowedOrigins.includes('*')) return `${url.origin} is not in the farm's allowed origins`;
    if (named || this.rules.allowPrivate) return null;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.resolve(host);
    } catch (err) {
      return `cannot resolve ${host}: ${(err as Error).message}`;
    }
    const bad = addresses.find(isPrivateAddress);
    if (bad) return `${url.origin} resolves to ${bad}, a private, loopback, link-local or metadata address`;
    return null;
  }
}
