// Perception for every device of this host: one Eyes per device, started as soon as the device
// appears (the eyes never close), and the calls the gateway makes about a leased device.
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend } from '../devices/backend.js';
import { Eyes, type EyesHoldings, type EyesOptions, type FrameRef } from './eyes.js';
import type { Transition } from './motion.js';

type Schemas = components['schemas'];
export type CallMethod = Extract<Schemas['GatewayCall']['method'], `perception.${string}`>;

const iso = (ms: number) => new Date(ms).toISOString();
const frameRef = (f: FrameRef | null): Schemas['FrameRef'] | null => (f ? { seq: f.seq, at: iso(f.wallAt), ageMs: f.ageMs } : null);
export const transitionJson = (t: Transition & { settledWallAt?: number }): Schemas['Transition'] => ({
  kind: t.kind,
  confidence: t.confidence,
  evidence: t.evidence,
  ...(t.offsetPt ? { offsetPt: t.offsetPt } : {}),
  ...(t.settledWallAt ? { settledAt: iso(t.settledWallAt) } : {}),
});

export class Perception {
  private readonly eyes = new Map<string, Eyes>();

  constructor(
    private readonly opts: EyesOptions,
    private readonly logger: Logger,
  ) {}

  /** Opens the eyes of every device not yet watched. */
  watch(devices: { localId: string; backend: DeviceBackend | undefined }[]): void {
    for (const { localId, backend } of devices) {
      if (!backend || this.eyes.has(localId)) continue;
      const eyes = new Eyes(backend, this.opts, this.logger.child({ localId }));
      eyes.start();
      this.eyes.set(localId, eyes);
    }
  }

  eyesOf(localId: string): Eyes {
    const eyes = this.eyes.get(localId);
    if (!eyes) throw new DeviceError('NOT_FOUND', `this host has no device ${localId}`);
    return eyes;
  }

  async call(localId: string, epoch: number, method: CallMethod, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const eyes = this.eyesOf(localId);
    // Frames already received count: a question never races the analysis of the last frame.
    await eyes.idle();
    switch (method) {
      case 'perception.mark': {
        const mark = eyes.mark(epoch);
        const newest = mark.frame ? { seq: mark.frame.seq, wallAt: mark.frame.wallAt, ageMs: Math.max(0, Math.round(Date.now() - mark.frame.wallAt)) } : null;
        return { mark: mark.id, frame: frameRef(newest), takenAt: iso(mark.takenWallAt) } satisfies Schemas['MarkCreated'];
      }
      case 'perception.changes': {
        const since = typeof params.since === 'string' ? params.since : undefined;
        const mark = since ? eyes.marks.get(since, epoch) : eyes.marks.latestOf(epoch);
        if (!mark) throw noMark(since);
        const c = eyes.changes(mark);
        return {
          mark: c.mark,
          changed: c.changed,
          ...(c.reason ? { reason: c.reason } : {}),
          fraction: c.fraction,
          regions: c.regions,
          ignored: c.ignored,
          settled: c.settled,
          transition: c.transition ? transitionJson(c.transition) : null,
          framesSince: c.framesSince,
          frame: frameRef(c.frame),
        } satisfies Schemas['Changes'];
      }
      case 'perception.wait': {
        const p = params as Schemas['WaitRequest'];
        const since = p.since ? eyes.marks.get(p.since, epoch) : eyes.marks.latestOf(epoch);
        if (p.since && !since) throw noMark(p.since);
        const timeoutMs = p.timeoutMs ?? 10_000;
        const r = await eyes.wait({
          for: p.for,
          timeoutMs,
          quietMs: p.quietMs ?? this.opts.quietMs,
          changeTimeoutMs: p.changeTimeoutMs ?? Math.min(timeoutMs, 1500),
          since,
        });
        return {
          status: r.status,
          waitedMs: r.waitedMs,
          frame: frameRef(r.frame),
          ...(r.movingRegion ? { movingRegion: r.movingRegion } : {}),
          ...(r.transition ? { transition: transitionJson(r.transition) } : {}),
        } satisfies Schemas['WaitResult'];
      }
    }
  }

  /** What every device's eyes hold, summed. */
  held(): EyesHoldings {
    const sum: EyesHoldings = { frames: 0, frameBytes: 0, marks: 0, markedFrameBytes: 0, fineProfilesPending: 0 };
    for (const e of this.eyes.values()) {
      const h = e.held();
      for (const k of Object.keys(sum) as (keyof EyesHoldings)[]) sum[k] += h[k];
    }
    return sum;
  }

  close(): void {
    for (const e of this.eyes.values()) e.stop();
    this.eyes.clear();
  }
}

function noMark(id: string | undefined): DeviceError {
  return new DeviceError(
    'UNKNOWN_MARK',
    id ? `no mark ${id} in this session` : 'this session has taken no mark yet',
    'POST /v1/sessions/{id}/marks first; marks last as long as the session holds its device',
  );
}
