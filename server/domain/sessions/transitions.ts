// Session transitions that other parts of the farm trigger (a host lost, a device broken, a TTL
// run out), inside the caller's transaction. Lock order everywhere: sessions before devices, so
// two transactions can never wait on each other in a cycle.
import type { Queryable } from '../../db/database.js';
import { recordAudit } from '../../db/repositories/audit.js';
import * as devices from '../../db/repositories/devices.js';
import * as sessions from '../../db/repositories/sessions.js';
import type { EndReason, SessionRow } from '../../db/repositories/sessions.js';

/** A device to reset once the transaction has committed. */
export interface ReclaimJob {
  deviceId: string;
  hostId: string;
  localId: string;
  epoch: number;
}

export interface Actor {
  tokenId: string | null;
  role: string | null;
}

/**
 * Ends a session. With `reclaim`, a device it held starts its reset (returned as a job to run after
 * commit); without, the caller has already decided the device's fate (offline, broken).
 */
export async function endSessionTx(
  tx: Queryable,
  session: SessionRow,
  reason: EndReason,
  detail: string | null,
  opts: { reclaim: boolean; actor?: Actor },
): Promise<{ ended: SessionRow | undefined; job: ReclaimJob | undefined }> {
  const ended = await sessions.endSession(tx, session.id, reason, detail);
  if (!ended) return { ended: undefined, job: undefined };
  await sessions.notifySessionEvent(tx, { id: ended.id, seq: Number(ended.event_seq), kind: 'session' });
  await recordAudit(tx, {
    actor: opts.actor?.tokenId ?? null,
    actorRole: opts.actor?.role ?? null,
    team: session.team,
    action: 'session.end',
    subject: session.id,
    detail: { reason, detail, deviceId: session.device_id, previousState: session.state },
  });
  let job: ReclaimJob | undefined;
  const heldDevice = session.device_id && (session.state === 'preparing' || session.state === 'ready');
  if (heldDevice && opts.reclaim) {
    const device = await devices.lockDevice(tx, session.device_id!);
    if (device && device.session_id === session.id) {
      const r = await devices.setDeviceReclaiming(tx, device.id, `resetting after session ${session.id}`);
      job = { deviceId: device.id, hostId: r.host_id, localId: r.local_id, epoch: r.epoch };
    }
  }
  return { ended, job };
}
