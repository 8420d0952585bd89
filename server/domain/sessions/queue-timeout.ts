// Why a queued request ended without a device, in its end detail: "no device became free" alone
// leaves the caller guessing whether the farm is broken or busy, and for how long. The detail says
// how many fitting devices are held, by how many sessions, and (only for sessions of the caller's
// own team, whose leases it may see anyway) when the first of them ends.
import type { Queryable } from '../../db/database.js';
import { holdersFor, type Holders } from '../../db/repositories/devices.js';
import type { SessionRow } from '../../db/repositories/sessions.js';

export async function queueTimeoutDetail(q: Queryable, session: SessionRow, why: string): Promise<string> {
  return `${why}: ${describeHolders(session.platform, await holdersFor(q, session.id))}`;
}

export function describeHolders(platform: string, h: Holders): string {
  const devices = (n: number) => `${n} ${platform} device${n === 1 ? '' : 's'}`;
  if (h.matching === 0) return `no ${platform} device that fits is reported any more`;
  const parts: string[] = [];
  if (h.held > 0) {
    parts.push(`${h.held} of ${devices(h.matching)} that fit ${h.held === 1 ? 'is' : 'are'} held by ${h.sessions} session${h.sessions === 1 ? '' : 's'}`);
    parts.push(
      h.teamEarliest
        ? `the first of your team's ends by ${h.teamEarliest.expiresAt.toISOString()} (${h.teamEarliest.id}) unless renewed`
        : "none of them is your team's",
    );
  }
  if (h.unavailable > 0)
    parts.push(
      `${h.unavailable} ${h.held > 0 ? 'more are' : `of ${devices(h.matching)} that fit ${h.unavailable === 1 ? 'is' : 'are'}`} broken, offline or being reset`,
    );
  if (parts.length === 0) parts.push(`${devices(h.matching)} fit, free now: ask again`);
  return parts.join('; ');
}
