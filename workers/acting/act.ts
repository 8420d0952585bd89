// One action with its settled result: the target found on the screen as it is, the graph asked
// where this action has led before, the touch played, the screen waited on until it settles, read
// again (from memory when the pixels agree), and a verdict given with its evidence. The graph and
// the app's memory learn from it; an escalation is raised when simfleet cannot vouch for the outcome.
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type NodeStates } from '../devices/backend.js';
import * as g from '../devices/gestures.js';
import type { Escalation, EscalationReason } from '../memory/app-memory.js';
import { looksDestructive } from '../memory/destructive.js';
import { tapKey } from '../memory/graph.js';
import { decide } from '../memory/verdict.js';
import type { Eyes } from '../perception/eyes.js';
import type { Element } from '../understanding/elements.js';
import { outlineText } from '../understanding/outline.js';
import { identity, type Read, type Understanding } from '../understanding/service.js';

type Schemas = components['schemas'];

const DEFAULT_TIMEOUT_MS = 5000;

export class Actor {
  constructor(
    private readonly understanding: Understanding,
    private readonly backendOf: (localId: string) => DeviceBackend,
    private readonly eyesOf: (localId: string) => Eyes,
    private readonly quietMs: number,
    private readonly logger: Logger,
  ) {}

  /** One action, or a batch of them (`steps`). */
  async run(localId: string, epoch: number, team: string, req: Schemas['ActionRequest'] | Schemas['BatchRequest']): Promise<Schemas['ActionResult'] | Schemas['BatchResult']> {
    return 'steps' in req ? this.batch(localId, epoch, team, req.steps) : this.act(localId, epoch, team, req);
  }

  /**
   * Steps in one call, each verified before the next: the fast tier. It stops before a step whose
   * target looks destructive unless the step says allowDestructive, after a verdict that says the
   * step went wrong, and at a step that fails; what ran is returned either way.
   */
  async batch(localId: string, epoch: number, team: string, steps: Schemas['ActionRequest'][]): Promise<Schemas['BatchResult']> {
    const results: Schemas['ActionResult'][] = [];
    for (const [index, step] of steps.entries()) {
      let r: Schemas['ActionResult'];
      try {
        r = await this.act(localId, epoch, team, step, { guardDestructive: true });
      } catch (err) {
        if (!(err instanceof DeviceError)) throw err;
        return { steps: results, completed: results.length, stoppedAt: { index, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
      }
      results.push(r);
      if (r.verdict === 'unexpected-screen' || r.verdict === 'no-visible-change') {
        return { steps: results, completed: results.length, stoppedAt: { index, code: r.verdict, message: `step ${index + 1}: ${r.reason}` } };
      }
    }
    return { steps: results, completed: results.length, stoppedAt: null };
  }

  async act(localId: string, epoch: number, team: string, req: Schemas['ActionRequest'], opts: { guardDestructive?: boolean } = {}): Promise<Schemas['ActionResult']> {
    const t0 = performance.now();
    const device = this.backendOf(localId);
    const eyes = this.eyesOf(localId);
    const readsBefore = this.understanding.treeReads(localId, epoch);
    const { read: before } = await this.understanding.current(localId, epoch, team);
    const memory = before.memory;
    let found;
    try {
      found = this.understanding.locate(localId, epoch, before, req.target, req.role);
    } catch (err) {
      if (err instanceof DeviceError && (err.code === 'NO_MATCH' || err.code === 'AMBIGUOUS')) {
        const e = memory.escalate({ reason: 'unresolved-intent', screen: before.identified.node.id, evidence: { target: req.target, role: req.role ?? null, code: err.code, ...(err.details ?? {}) }, costMs: Math.round(performance.now() - t0) });
        this.logEscalation(localId, e);
      }
      throw err;
    }
    const el = before.reading.elements[found.index]!;
    if (!el.tap) throw new DeviceError('NO_MATCH', `${el.role} ${JSON.stringify(el.label)} has no point that can be tapped`, 'scroll it into view first');
    // The fast tier never does what cannot be undone unless the step says so.
    if (opts.guardDestructive && !req.allowDestructive && looksDestructive(el.label)) {
      throw new DeviceError('DESTRUCTIVE_REFUSED', `${el.role} ${JSON.stringify(el.label)} on screen ${before.identified.node.id}${before.identified.node.name ? ` ${JSON.stringify(before.identified.node.name)}` : ''} looks destructive; not tapped`, 'say allowDestructive: true on this step if it is meant', { target: this.understanding.elementJson(before, found.index), screen: identity(before) });
    }
    const action = tapKey(el);
    const predicted = memory.graph.predict(before.identified.node.id, action);
    const t1 = performance.now();

    await eyes.idle();
    const mark = eyes.mark(epoch);
    await device.touch(g.tap(el.tap));
    const t2 = performance.now();
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const quietMs = req.quietMs ?? this.quietMs;
    const waited = await eyes.wait({ for: 'settled', timeoutMs, quietMs, changeTimeoutMs: Math.min(timeoutMs, 1500), since: mark });
    if (waited.status === 'settled') await streamQuiet(eyes, quietMs, t2 + timeoutMs);
    const t3 = performance.now();

    const { read: after } = await this.understanding.current(localId, epoch, team, predicted ? { expect: [predicted.to] } : {});
    this.understanding.number(localId, epoch, after); // the next call's @N are this outline's
    const t4 = performance.now();
    const stateBefore = el.states;
    const same = after.identified.node.id === before.identified.node.id ? findAgain(el, after) : undefined;
    const stateAfter = same?.states ?? null;
    const stateChanged = stateAfter !== null && toggled(stateBefore, stateAfter);
    const outcome = decide({ settle: waited.status, before: before.identified.node.id, after: after.identified.node.id, predicted: predicted?.to ?? null, stateChanged });
    memory.recordEdge(before.identified.node.id, action, after.identified.node.id, { durationMs: t3 - t1, kind: waited.transition?.kind ?? null, verified: outcome.verdict === 'ok' });

    const reason: EscalationReason | null = after.newModal
      ? 'unfamiliar-modal'
      : outcome.verdict === 'unexpected-screen'
        ? 'unexpected-outcome'
        : !after.identified.known
          ? 'unknown-screen'
          : null;
    const change = eyes.changes(mark);
    const evidence = {
      before: identity(before),
      after: identity(after),
      predicted: predicted ? { id: predicted.to, count: predicted.count, verified: predicted.verified } : null,
      changed: change.changed,
      fraction: change.fraction,
      regions: change.regions,
      stateBefore,
      stateAfter,
      destructive: looksDestructive(el.label),
      afterFrom: after.source,
    };
    const escalation = reason ? memory.escalate({ reason, screen: after.identified.node.id, evidence: { action, verdict: outcome.verdict, ...evidence }, costMs: Math.round(t4 - t0) }) : null;
    if (escalation) this.logEscalation(localId, escalation);
    this.logger.info({ localId, action, verdict: outcome.verdict, reason: outcome.reason, before: evidence.before.id, after: evidence.after.id, predicted: evidence.predicted?.id ?? null }, 'action verdict');
    const header = this.understanding.header(localId, after);
    return {
      action: 'tap',
      target: this.understanding.elementJson(before, found.index),
      verdict: outcome.verdict,
      reason: outcome.reason,
      evidence,
      settle: { status: waited.status, waitedMs: waited.waitedMs, ...(waited.movingRegion ? { movingRegion: waited.movingRegion } : {}) },
      transition: waited.transition ? { kind: waited.transition.kind, confidence: waited.transition.confidence } : null,
      screen: identity(after),
      outline: outlineText(after.reading, header),
      escalation: escalation ? { reason: escalation.reason, screen: escalation.screen, costMs: escalation.costMs } : null,
      timings: { resolveMs: ms(t1 - t0), touchMs: ms(t2 - t1), settleMs: ms(t3 - t2), readMs: ms(t4 - t3), totalMs: ms(t4 - t0) },
      treeReads: { action: this.understanding.treeReads(localId, epoch) - readsBefore, session: this.understanding.treeReads(localId, epoch) },
    };
  }

  private logEscalation(localId: string, e: Escalation): void {
    this.logger.info({ localId, reason: e.reason, screen: e.screen, costMs: e.costMs, evidence: e.evidence }, 'escalation');
  }
}

/** The acted element on the screen after, by id, else by role and label. */
function findAgain(e: Element, after: Read): Element | undefined {
  return after.reading.elements.find((x) => (e.id ? x.id === e.id : x.role === e.role && x.label === e.label));
}

function toggled(a: NodeStates, b: NodeStates): boolean {
  return (a.checked ?? false) !== (b.checked ?? false) || (a.selected ?? false) !== (b.selected ?? false) || (a.expanded ?? false) !== (b.expanded ?? false);
}

const ms = (x: number) => Math.round(x * 10) / 10;

/**
 * Until no frame has come for the quiet window (or the deadline). Memory must never learn a
 * half-drawn face, so an action's outcome is read only once the frames have stopped, whatever the
 * settle answer said: a settled answer once came on the first frames of an eased switch (fixed in
 * settle.ts, tested in test/browser/perception.test.ts); this keeps memory safe from the next one.
 */
async function streamQuiet(eyes: Eyes, quietMs: number, deadline: number): Promise<void> {
  for (;;) {
    await eyes.idle();
    const newest = eyes.store.newest();
    const since = newest ? performance.now() - newest.at : Infinity;
    if (since >= quietMs || performance.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, Math.min(quietMs - since + 5, deadline - performance.now())));
  }
}
