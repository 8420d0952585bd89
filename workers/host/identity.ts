// Who this host is. The id is chosen once and kept in the data dir, so a restarted worker comes
// back as the same host (and its devices keep their ids).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { arch, hostname, platform, release } from 'node:os';
import { join } from 'node:path';

export interface HostIdentity {
  id: string;
  name: string;
  os: string;
  arch: string;
  version: string;
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]{2,62}$/;

export async function loadHostIdentity(opts: { dataDir: string; id?: string | undefined; name?: string | undefined; version: string }): Promise<HostIdentity> {
  const file = join(opts.dataDir, 'host-id');
  let id = opts.id;
  if (!id) {
    const stored = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (stored && !ID_PATTERN.test(stored)) throw new Error(`${file} holds "${stored}", which is not a valid host id; delete it to choose a new one`);
    id = stored || newHostId();
    if (!stored) {
      await mkdir(opts.dataDir, { recursive: true });
      await writeFile(file, `${id}\n`);
    }
  }
  return { id, name: opts.name ?? hostname(), os: `${platform()} ${release()}`, arch: arch(), version: opts.version };
}

function newHostId(): string {
  const base =
    hostname()
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'host';
  return `${/^[a-z0-9]/.test(base) ? base : `h${base}`}-${randomBytes(3).toString('hex')}`;
}
