import { describe, expect, it } from 'vitest';
import { checkAppUrl } from '../../server/domain/sessions/origins.js';
import { isPrivateAddress, OriginPolicy } from '../../workers/devices/origin-policy.js';

const dns: Record<string, string[]> = {
  'example.com': ['93.184.215.14'],
  'sneaky.example.com': ['169.254.169.254'],
  'intranet.example.com': ['10.1.2.3'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'v6-private.example.com': ['fd00:ec2::254'],
};
const resolver = async (host: string) => {
  const found = dns[host];
  if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return found;
};
const policy = (allowedOrigins: string[], allowPrivate = false) => new OriginPolicy({ allowedOrigins, allowPrivate }, ['http://127.0.0.1:5555'], resolver);

describe('the web origin policy (worker side, after DNS)', () => {
  it('knows private, loopback, link-local, CGNAT and metadata addresses, mapped IPv6 included', () => {
    for (const a of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '::1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:10.0.0.1',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('allows a public origin under *, and refuses a name that resolves to a metadata or private address', async () => {
    const p = policy(['*']);
    expect(await p.verdict('https://example.com/app')).toBeNull();
    expect(await p.verdict('https://sneaky.example.com/')).toContain('resolves to 169.254.169.254');
    expect(await p.verdict('http://intranet.example.com/')).toContain('10.1.2.3');
    expect(await p.verdict('http://v6-private.example.com/')).toContain('fd00:ec2::254');
    expect(await p.verdict('http://169.254.169.254/latest/meta-data/')).toContain('metadata');
    await expect(p.check('http://169.254.169.254/')).rejects.toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    await expect(p.check('https://nowhere.example.com/')).rejects.toMatchObject({ code: 'APP_UNREACHABLE' });
  });

  it('sees through other spellings of an address: decimal, octal, hex, short forms, IPv6 brackets and mapped forms', async () => {
    const p = policy(['*']);
    for (const url of [
      'http://2852039166/',
      'http://0251.0376.0251.0376/',
      'http://0xa9fea9fe/',
      'http://0xA9.0xFE.0xA9.0xFE/',
      'http://169.254.43518/',
      'http://127.1/',
      'http://0/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://LOCALHOST./',
    ]) {
      expect(await p.verdict(url), url).not.toBeNull();
    }
  });

  it('allows a private origin only when it is named, or when private addresses are allowed', async () => {
    expect(await policy(['*', 'http://intranet.example.com']).verdict('http://intranet.example.com/')).toBeNull();
    expect(await policy(['*', 'http://intranet.example.com']).verdict('http://intranet.example.com:8080/')).not.toBeNull(); // port is part of the origin
    expect(await policy(['*'], true).verdict('http://10.9.9.9/')).toBeNull();
  });

  it('holds a list without * to the listed origins, wildcards included', async () => {
    const p = policy(['https://*.example.com', 'https://example.org']);
    expect(await p.verdict('https://v6.example.com/')).toBeNull();
    expect(await p.verdict('https://example.com/')).toContain('not in the farm');
    expect(await p.verdict('https://example.org/')).toBeNull();
    expect(await p.verdict('http://v6.example.com/')).toContain('not in the farm'); // scheme is part of the origin
  });

  it('calls a name that does not resolve APP_UNREACHABLE, with a hint about the name and DNS rather than the allowed origins', async () => {
    const err = await policy(['*'])
      .check('https://no-such-host.invalid/')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'APP_UNREACHABLE', message: expect.stringContaining('cannot resolve no-such-host.invalid') });
    expect((err as { hint: string }).hint).toMatch(/host name/);
    expect((err as { hint: string }).hint).not.toMatch(/ALLOWED_ORIGINS/);
    await expect(policy(['https://example.com']).check('https://other.example.org/')).rejects.toMatchObject({
      code: 'ORIGIN_NOT_ALLOWED',
      hint: expect.stringContaining('SIMFLEET_WEB_ALLOWED_ORIGINS'),
    });
  });

  it('always allows the sample app, and only http and https', async () => {
    const p = policy([]);
    expect(await p.verdict('http://127.0.0.1:5555/sample/#/inbox')).toBeNull();
    expect(await p.verdict('file:///etc/passwd')).toContain('only http and https');
    expect(await p.verdict('javascript:alert(1)')).toContain('only http and https');
  });
});

describe("the gateway's first look at a session's app URL", () => {
  const rules = { allowedOrigins: ['*'], allowPrivate: false };
  it('refuses literal private and metadata addresses and localhost with ORIGIN_NOT_ALLOWED', () => {
    for (const url of ['http://169.254.169.254/', 'http://10.0.0.5:8080/', 'http://localhost:3000/', 'http://[::1]/', 'http://app.localhost/']) {
      expect(() => checkAppUrl(url, rules), url).toThrow(expect.objectContaining({ code: 'ORIGIN_NOT_ALLOWED' }));
    }
    expect(() => checkAppUrl('ftp://example.com/', rules)).toThrow(/http and https/);
    // Other spellings of the same addresses, as the URL parser normalises them.
    for (const url of [
      'http://2852039166/',
      'http://0251.0376.0251.0376/',
      'http://0xa9fea9fe/',
      'http://127.1/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://LOCALHOST./',
    ]) {
      expect(() => checkAppUrl(url, rules), url).toThrow(expect.objectContaining({ code: 'ORIGIN_NOT_ALLOWED' }));
    }
  });

  it('passes public names to the worker (which resolves them) and honours named private origins', () => {
    expect(() => checkAppUrl('https://example.com/', rules)).not.toThrow();
    expect(() => checkAppUrl('http://localhost:3000/', { allowedOrigins: ['*', 'http://localhost:3000'], allowPrivate: false })).not.toThrow();
    expect(() => checkAppUrl('https://other.org/', { allowedOrigins: ['https://example.com'], allowPrivate: false })).toThrow(/not in the farm/);
  });
});
