// One action with its settled result: the target found on the screen as it is, the graph asked
// where this action has led before (or the recording's destination, on a replay), the input played,
// the screen waited on until it settles, read again (from memory when the pixels agree), and a
// verdict given with its evidence. The graph and the app's memory learn from it; an escalation is
// raised when simfleet cannot vouch for the outcome.
import { TAKES_TEXT } from '../understanding/elements.js';
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type NodeStates } from '../devices/backend.js';
import type { Escalation, EscalationReason } from '../memory/app-memory.js';
import { looksDestructive } from '../memory/destructive.js';
import { tapKey } from '../memory/graph.js';
import { decide } from '../memory/verdict.js';
import type { Eyes } from '../perception/eyes.js';
import type { Element } from '../understanding/elements.js';
import { outlineText } from '../understanding/outline.js';
import { identity, type Read, type Understanding } from '../understanding/service.js';
import { bindingOf } from './binding.js';
import { checkDeadline } from './deadline.js';
import { type Played, perform, type ActionKind } from './perform.js';
import { CHOOSES, planChoice } from './choose.js';
import { scrollBy, scrollTo, viewportStep, type Direction } from './scroll.js';
import { STALL_PT } from './scroll-sensor.js';
import { pointOf, resolveTarget } from './targets.js';
import { describeSelector } from '../understanding/select.js';
import { normaliseLabel } from '../understanding/names.js';

type Schemas = components['schemas'];

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_MAX_SCROLLS = 10;

/** Actions that go somewhere: the graph remembers where, and a replay checks it. */
const NAVIGATING = new Set<ActionKind>(['tap', 'double-tap', 'long-press', 'back', 'key', 'open', 'launch']);
/** Actions that touch a control and may set something off. */
const ACTIVATING = new Set<ActionKind>(['tap', 'double-tap', 'long-press']);
/** Actions that are input to the app (a touch, a key): the delivery probe counts them arriving. */
const INPUT = new Set<ActionKind>(['tap', 'double-tap', 'long-press', 'type', 'clear', 'swipe', 'scroll', 'drag', 'pinch', 'rotate', 'key']);
/**
 * Actions whose verdict rests on a field's value, which only a read of the tree tells: a few typed
 * characters can move too few pixels for perception to call it a change (Ratchet's search field took
 * "Skyfall" with no cell past the threshold), and the last read would be served again, value and all.
 */
const TAKES_INPUT = new Set<ActionKind>(['type', 'clear']);
/** Undelivered inputs in a row after which a device is suspect. */
const SUSPECT_AFTER = 3;

export interface ActOptions {
  /** The fast tier (batches, replays): refuse a destructive-looking target unless the step allows it. */
  guardDestructive?: boolean;
  /** The element already chosen by a replay's identity check (index into the reading `before`). */
  chosen?: { index: number; before: Read };
  /** The screen a recording says this step ends on: predicted instead of the graph's guess. */
  expectTo?: string;
}

/** Who is told of every action and escalation (the device's event log, streams/feeds.ts). */
export interface ActionWitness {
  action(localId: string, epoch: number, result: Schemas['ActionResult']): void;
  escalation(localId: string, epoch: number, e: { reason: EscalationReason; screen: string; action: Schemas['ActionKind']; costMs: number }): void;
}

export class Actor {
  seen: ActionWitness | undefined;
  /** Per device: actions in a row whose input showed no sign of arriving. */
  private readonly undelivered = new Map<string, number>();

  constructor(
    readonly understanding: Understanding,
    readonly backendOf: (localId: string) => DeviceBackend,
    readonly eyesOf: (localId: string) => Eyes,
    readonly quietMs: number,
    readonly logger: Logger,
  ) {}

  async act(localId: string, epoch: number, team: string, req: Schemas['ActionRequest'], opts: ActOptions = {}): Promise<Schemas['ActionResult']> {
    const t0 = performance.now();
    const u = this.understanding;
    const device = this.backendOf(localId);
    const eyes = this.eyesOf(localId);
    const kind = req.action;
    const readsBefore = u.treeReads(localId, epoch);
    let before = opts.chosen?.before ?? (await u.current(localId, epoch, team)).read;
    const memory = before.memory;

    // The target: an element (or a point) on the screen as it is now.
    let index: number | null = null;
    let point = null;
    let match: Schemas['ActionResult']['match'];
    const resolve = () => {
      try {
        const r = resolveTarget(u, localId, epoch, before, req);
        index = r.index;
        point = r.point;
        match = { asked: r.matched, how: r.how, approximate: r.how === 'fuzzy' };
      } catch (err) {
        this.unresolved(localId, epoch, err, before, req, t0);
        throw err;
      }
    };
    if (opts.chosen) {
      index = opts.chosen.index;
      point = before.reading.elements[index]!.tap;
    } else if (req.target || (req.select && kind !== 'scroll')) {
      resolve();
      // A destructive-looking target is never acted on from memory: a remembered outline can be
      // another screen's that shares its face (the field report's review step inherited step one's
      // controls, and its only real control submitted the form). Found there, it is looked for again
      // on a live read of the tree, and acted on only if that read has it too.
      const found = index !== null ? before.reading.elements[index]! : null;
      if (before.source === 'memory' && !req.allowDestructive && found && ACTIVATING.has(kind) && looksDestructive(found.label)) {
        this.logger.info(
          { localId, target: req.target, screen: before.identified.node.id },
          'a destructive-looking target was found on a remembered outline: reading the screen before acting',
        );
        before = (await u.current(localId, epoch, team, { live: true })).read;
        index = null;
        point = null;
        resolve();
      }
    }
    const to = req.to && kind !== 'scroll' ? (pointOf(req.to, before) ?? resolveTarget(u, localId, epoch, before, { target: req.to }).point) : null;
    const el = index !== null ? before.reading.elements[index]! : null;
    if (opts.guardDestructive && !req.allowDestructive && el && ACTIVATING.has(kind) && looksDestructive(el.label)) {
      throw new DeviceError(
        'DESTRUCTIVE_REFUSED',
        `${el.role} ${JSON.stringify(el.label)} on screen ${before.identified.node.id}${before.identified.node.name ? ` ${JSON.stringify(before.identified.node.name)}` : ''} looks destructive; not touched`,
        'say allowDestructive: true on this step if it is meant',
        { target: u.elementJson(before, index!), screen: identity(before) },
      );
    }
    const chooses = kind === 'type' && el !== null && CHOOSES.has(el.role);
    if ((kind === 'type' || kind === 'clear') && el && !TAKES_TEXT.has(el.role) && !chooses) {
      // Typing into what takes no text would tap it (a checkbox laid over a field completed every
      // to-do), and the tap's own effect would pass for the typing's.
      throw new DeviceError(
        'NOT_A_FIELD',
        `${el.role} ${JSON.stringify(el.label)} takes no text; nothing was touched`,
        `name a text field: a textfield line of the outline (a label beside a field names it)${kind === 'type' ? ', or a select to choose the option the text names' : ''}`,
        { target: u.elementJson(before, index!) },
      );
    }
    // Typing into a select chooses the option the text names: known, or refused, before anything is touched.
    const choice = chooses && point ? await planChoice(device, el!, point, req.text!, before) : undefined;
    const key = actionKey(kind, el, req);
    // The transition that leads to the next read, for identity's evidence of a template (identity.ts).
    const via = key ? { via: { from: before.identified.node.id, action: key } } : {};
    const predicted = opts.expectTo
      ? { to: opts.expectTo, count: 0, verified: 0 }
      : NAVIGATING.has(kind) && key
        ? memory.graph.predict(before.identified.node.id, key)
        : null;
    const t1 = performance.now();

    await eyes.idle();
    const mark = eyes.mark(epoch, { byId: false });
    const inputsBefore = INPUT.has(kind) ? await inputCount(device) : undefined;
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const quietMs = req.quietMs ?? this.quietMs;
    let waited: Awaited<ReturnType<Eyes['wait']>> | undefined;
    let settledBy: 'quiet' | 'arrival' = 'quiet';
    let t2 = t1;
    const settleRead = async (): Promise<Read> => {
      t2 = performance.now();
      const deadline = t2 + timeoutMs;
      const changeTimeoutMs = Math.min(timeoutMs, 1500);
      // Where the action leads is known and what that screen looks like is remembered: a short still
      // moment on exactly those pixels is arrival, and the rest of the quiet window can be skipped.
      // Anything else (other pixels, a screen still moving) waits out the whole window as usual.
      if (predicted && quietMs > ARRIVAL_QUIET_MS) {
        const w = await doubtNoChange(eyes, await eyes.wait({ for: 'settled', timeoutMs, quietMs: ARRIVAL_QUIET_MS, changeTimeoutMs, since: mark }), () =>
          eyes.wait({ for: 'settled', timeoutMs, quietMs: ARRIVAL_QUIET_MS, changeTimeoutMs: 0, since: mark }),
        );
        waited = w;
        if (w.status === 'settled') {
          await streamQuiet(eyes, ARRIVAL_QUIET_MS, deadline);
          const newest = eyes.store.newest();
          if (newest && memory.matchPixels(newest, [predicted.to])?.node === predicted.to) {
            settledBy = 'arrival';
            return (await u.current(localId, epoch, team, { expect: [predicted.to], arrived: true, ...via })).read;
          }
        }
        if (w.status !== 'settled' && w.status !== 'changed') return (await u.current(localId, epoch, team, { expect: [predicted.to], ...via })).read;
      }
      const left = () => Math.max(1, deadline - performance.now());
      const w = await doubtNoChange(
        eyes,
        await eyes.wait({ for: 'settled', timeoutMs: left(), quietMs, changeTimeoutMs: waited ? 0 : changeTimeoutMs, since: waited ? undefined : mark }),
        () => eyes.wait({ for: 'settled', timeoutMs: left(), quietMs, changeTimeoutMs: 0, since: mark }),
      );
      const waitedMs = Math.round(performance.now() - t2);
      // After an arrival wait that saw the change and a stillness on other pixels (a renderer starved
      // of CPU pauses mid-transition), this second wait asks for no new change: "no-change" from it
      // means the screen stayed still, which is the settle the first wait began, not "nothing happened".
      if (waited?.status === 'settled' && w.status === 'no-change') waited = { ...waited, waitedMs };
      else waited = waited && w.status === 'settled' ? { ...w, waitedMs, ...(waited.transition ? { transition: waited.transition } : {}) } : w;
      if (w.status === 'settled') await streamQuiet(eyes, quietMs, deadline);
      return (
        await u.current(localId, epoch, team, { ...(predicted ? { expect: [predicted.to] } : {}), ...via, ...(TAKES_INPUT.has(kind) ? { live: true } : {}) })
      ).read;
    };

    let after: Read;
    let scrolled: Schemas['ActionResult']['scrolled'];
    let found: number | null = null;
    let played: Played = {};
    // Reading the screen can take seconds on a slow host (a tree read, the pixel tier): the input is
    // not played for a caller that has stopped waiting. A gesture begun is played to its end: a
    // finger lifted halfway through a drag is a different gesture.
    checkDeadline(`the ${kind}`);
    if (kind === 'scroll') {
      const within = point ?? undefined;
      if (req.to || req.select) {
        const target = req.to ?? describeSelector(req.select!);
        const select = req.to ? undefined : req.select;
        const find = (r: Read) => (select ? selectIn(u, localId, epoch, r, select) : findIn(u, localId, epoch, r, target, req.role));
        const out = await scrollTo(device, before, find, req.direction as Direction | undefined, req.maxScrolls ?? DEFAULT_MAX_SCROLLS, settleRead);
        after = out.after;
        found = out.found;
        scrolled = { requestedPt: 0, movedPt: out.movedPt, atEnd: out.atEnd };
        if (found === null) {
          throw new DeviceError(
            'NO_MATCH',
            `${JSON.stringify(target)} did not come into view after ${out.scrolls} scroll${out.scrolls === 1 ? '' : 's'}${out.atEnd ? ' (the content stopped moving: the end)' : ''}`,
            out.atEnd ? 'it is not on this screen; read the screen for the labels it has' : 'raise maxScrolls, or scroll the other way',
            { scrolls: out.scrolls, atEnd: out.atEnd },
          );
        }
      } else {
        const distance = req.distance ?? viewportStep(before);
        const out = await scrollBy(device, before, req.direction as Direction, distance, settleRead, within);
        after = out.after;
        scrolled = { requestedPt: distance, movedPt: out.movedPt, atEnd: out.atEnd };
      }
    } else {
      played = await perform(device, kind, req, { point, element: el, to, ...(choice ? { choice } : {}) }, before);
      after = await settleRead();
    }
    const t3 = performance.now();
    u.number(localId, epoch, after); // the next call's @N are this outline's
    const t4 = performance.now();

    const same = el && after.identified.node.id === before.identified.node.id ? findAgain(el, after) : undefined;
    const stateBefore = el?.states ?? null;
    const stateAfter = same?.states ?? null;
    const change = eyes.changes(mark);
    const inPlace = withFocus(
      played.choice ? chosenInPlace(played.choice, same, after) : changedInPlace(kind, el, same, stateBefore, stateAfter, scrolled, found, change.changed),
      played.focus,
    );
    const settle = waited ?? { status: 'no-change' as const, waitedMs: 0 };
    // A native select's option is set as a pick sets it (input and change, no touch to count): it arrived.
    const delivered =
      played.choice?.kind === 'native'
        ? true
        : inputsBefore === undefined
          ? undefined
          : inputsBefore === null
            ? null
            : await inputCount(device).then((n) => (n === null ? null : n !== inputsBefore));
    const typedNowhere = played.focus?.how === 'none' ? nowhere(kind, played.focus) : undefined;
    const outcome = decide({
      settle: settle.status,
      before: before.identified.node.id,
      after: after.identified.node.id,
      predicted: predicted?.to ?? null,
      stateChanged: inPlace !== null,
      ...(inPlace ? { changedHow: inPlace } : {}),
      ...(delivered !== undefined ? { delivered } : {}),
      contentChanged: saysOtherwise(before.reading.elements, after.reading.elements),
      ...(typedNowhere ? { typedNowhere } : {}),
    });
    // Keys held back for want of a field say nothing of the device's input service: no streak.
    const delivery = delivered === undefined ? undefined : this.deliveryOf(localId, delivered, typedNowhere ? 'no-visible-change' : outcome.verdict);
    // An action that did nothing (no change, or not delivered) leads nowhere: it is no edge of the
    // graph, which would otherwise predict the same nothing as an outcome next time.
    const didSomething = outcome.verdict !== 'no-visible-change' && outcome.verdict !== 'not-delivered';
    if (NAVIGATING.has(kind) && key && didSomething)
      memory.recordEdge(before.identified.node.id, key, after.identified.node.id, {
        durationMs: t3 - t1,
        kind: waited?.transition?.kind ?? null,
        verified: outcome.verdict === 'ok',
      });

    const reason: EscalationReason | null = after.newModal
      ? 'unfamiliar-modal'
      : outcome.verdict === 'unexpected-screen'
        ? 'unexpected-outcome'
        : !after.identified.known
          ? 'unknown-screen'
          : null;
    const evidence = {
      before: identity(before),
      after: identity(after),
      predicted: predicted ? { id: predicted.to, count: predicted.count, verified: predicted.verified } : null,
      changed: change.changed,
      fraction: change.fraction,
      regions: change.regions,
      stateBefore,
      stateAfter,
      destructive: el ? looksDestructive(el.label) : false,
      afterFrom: after.source,
      ...(el && !opts.chosen ? { targetFrom: before.source } : {}),
      ...(delivery ? { delivery } : {}),
      sensors: sensorsOf(after),
      ...(played.focus ? { focus: played.focus } : {}),
      ...(played.choice ? { choice: { option: played.choice.label, was: played.choice.was, how: played.choice.kind } } : {}),
    };
    const escalation = reason
      ? memory.escalate({
          reason,
          screen: after.identified.node.id,
          evidence: { action: key ?? kind, verdict: outcome.verdict, ...evidence },
          costMs: Math.round(t4 - t0),
        })
      : null;
    const t5 = performance.now();
    if (escalation) this.logEscalation(localId, escalation);
    this.logger.info(
      {
        localId,
        action: key ?? kind,
        verdict: outcome.verdict,
        reason: outcome.reason,
        before: evidence.before.id,
        after: evidence.after.id,
        predicted: evidence.predicted?.id ?? null,
      },
      'action verdict',
    );
    const acted = found !== null ? { read: after, index: found } : el ? { read: before, index: index! } : null;
    const result: Schemas['ActionResult'] = {
      action: kind,
      app: device.foreground(),
      target: acted ? u.elementJson(acted.read, acted.index) : null,
      binding: acted ? bindingOf(acted.read.reading, acted.index) : null,
      ...(match ? { match } : {}),
      ...(scrolled ? { scrolled } : {}),
      verdict: outcome.verdict,
      reason: outcome.reason,
      evidence,
      settle: { status: settle.status, waitedMs: settle.waitedMs, by: settledBy, ...(waited?.movingRegion ? { movingRegion: waited.movingRegion } : {}) },
      transition: waited?.transition ? { kind: waited.transition.kind, confidence: waited.transition.confidence } : null,
      screen: identity(after),
      // The header says what this answer's settle says (it was settled by arrival, or not settled).
      outline: outlineText(
        after.reading,
        u.header(localId, after, {
          settled: settle.status === 'settled' || settle.status === 'no-change',
          ...(waited?.movingRegion ? { movingForMs: waited.movingRegion.movingForMs } : {}),
        }),
      ),
      escalation: escalation ? { reason: escalation.reason, screen: escalation.screen, costMs: escalation.costMs } : null,
      timings: { resolveMs: ms(t1 - t0), touchMs: ms(t2 - t1), settleMs: ms(t3 - t2), readMs: ms(t4 - t3), verdictMs: ms(t5 - t4), totalMs: ms(t5 - t0) },
      treeReads: { action: u.treeReads(localId, epoch) - readsBefore, session: u.treeReads(localId, epoch) },
    };
    this.seen?.action(localId, epoch, result);
    return result;
  }

  /**
   * The delivery probe's tally for a device: inputs in a row that nothing shows arrived. Three make
   * the device suspect — its input service may have detached — and that is logged once per streak.
   */
  private deliveryOf(localId: string, delivered: boolean | null, verdict: string): NonNullable<Schemas['ActionResult']['evidence']['delivery']> {
    const streak = verdict === 'not-delivered' ? (this.undelivered.get(localId) ?? 0) + 1 : 0;
    this.undelivered.set(localId, streak);
    const suspect = streak >= SUSPECT_AFTER;
    if (streak === SUSPECT_AFTER)
      this.logger.warn(
        { localId, streak },
        'device suspect: inputs in a row show no sign of arriving (its input service may have detached); a reset usually restores it',
      );
    return { counted: delivered !== null, delivered, streak, suspect };
  }

  /** A target nothing (or several things) matched is an intent simfleet could not resolve: recorded. */
  private unresolved(localId: string, epoch: number, err: unknown, before: Read, req: Schemas['ActionRequest'], t0: number): void {
    if (!(err instanceof DeviceError) || (err.code !== 'NO_MATCH' && err.code !== 'AMBIGUOUS')) return;
    const e = before.memory.escalate({
      reason: 'unresolved-intent',
      screen: before.identified.node.id,
      evidence: { action: req.action, target: req.target ?? null, role: req.role ?? null, code: err.code, ...(err.details ?? {}), sensors: sensorsOf(before) },
      costMs: Math.round(performance.now() - t0),
    });
    this.logEscalation(localId, e);
    this.seen?.escalation(localId, epoch, { reason: e.reason, screen: e.screen, action: req.action, costMs: e.costMs });
  }

  logEscalation(localId: string, e: Escalation): void {
    this.logger.info({ localId, reason: e.reason, screen: e.screen, costMs: e.costMs, evidence: e.evidence }, 'escalation');
  }
}

/** The graph's name for an action: taps keep their historic key; other kinds name their target. */
function actionKey(kind: ActionKind, el: Element | null, req: Schemas['ActionRequest']): string | null {
  if (kind === 'tap') return el ? tapKey(el) : null;
  if (kind === 'back' || kind === 'launch') return kind;
  if (kind === 'key') return `key ${req.key}`;
  if (kind === 'open') return `open ${req.url}`;
  if (!el) return null;
  return `${kind} ${el.id ? `#${el.id}` : `${el.role} ${JSON.stringify(el.label)}`}`;
}

/** What the action did in place, in words, or null when it did nothing an in-place action does. */
function changedInPlace(
  kind: ActionKind,
  el: Element | null,
  same: Element | undefined,
  a: NodeStates | null,
  b: NodeStates | null,
  scrolled: Schemas['ActionResult']['scrolled'],
  found: number | null,
  changed: string,
): string | null {
  // A tap's effect is a toggle; typing's is the field's value, and nothing else counts for it.
  if ((kind === 'type' || kind === 'clear') && el && same) return (el.value ?? '') !== (same.value ?? '') ? "the field's value changed" : null;
  if (a && b && toggled(a, b)) return 'the element changed state';
  if (kind === 'scroll') {
    if (found !== null) return 'the element came into view';
    if (scrolled?.movedPt != null && Math.abs(scrolled.movedPt) >= STALL_PT) return `the content moved ${Math.round(Math.abs(scrolled.movedPt))} pt`;
    return null;
  }
  if ((kind === 'swipe' || kind === 'drag' || kind === 'pinch' || kind === 'rotate') && changed === 'yes') return 'the screen changed under the gesture';
  return null;
}

/** Typing's in-place change, with how the keys reached the field when the tap alone did not get them there. */
function withFocus(how: string | null, focus: Played['focus']): string | null {
  if (how === null || focus?.how !== 'direct') return how;
  return `${how} (the tap left the focus on ${focus.was}; ${focus.field ?? 'the field'} was focused directly)`;
}

/**
 * Choosing an option did what it does when the select now shows that option and showed another
 * before (a listbox the page draws: that option is now the selected one).
 */
function chosenInPlace(choice: NonNullable<Played['choice']>, same: Element | undefined, after: Read): string | null {
  if (choice.kind === 'tap') {
    if (choice.was === choice.label) return null;
    const picked = after.reading.elements.some((e) => e.role === 'option' && e.label === choice.label && e.states.selected === true);
    return picked ? `the option ${JSON.stringify(choice.label)} is selected${choice.was !== null ? ` (${JSON.stringify(choice.was)} was)` : ''}` : null;
  }
  const now = same?.value ?? null;
  if (now === null || now === choice.was || normaliseLabel(now) !== normaliseLabel(choice.label)) return null;
  return `the select shows ${JSON.stringify(choice.label)}${choice.was !== null ? ` (it showed ${JSON.stringify(choice.was)})` : ''}`;
}

/** Why nothing was typed: the tap left the focus outside any field, and no field at the point took it. */
function nowhere(kind: ActionKind, focus: NonNullable<Played['focus']>): string {
  const what = kind === 'clear' ? 'nothing was erased' : 'nothing was typed';
  return focus.field
    ? `the tap left the focus on ${focus.was} and ${focus.field} there would not take it: ${what}`
    : `the tap left the focus on ${focus.was} and there is no field at the point: ${what}`;
}

/** Whether two readings say different things: elements, words, values or states (not where they are). */
function saysOtherwise(a: Element[], b: Element[]): boolean {
  if (a.length !== b.length) return true;
  // Focus is left out: a tap focuses what it lands on, whether or not the app did anything.
  const says = (e: Element) => {
    const { focused: _focused, ...states } = e.states;
    return `${e.role}\u0000${e.label}\u0000${e.value ?? ''}\u0000${JSON.stringify(states)}`;
  };
  const count = new Map<string, number>();
  for (const e of a) count.set(says(e), (count.get(says(e)) ?? 0) + 1);
  for (const e of b) {
    const n = count.get(says(e));
    if (!n) return true;
    count.set(says(e), n - 1);
  }
  return false;
}

/** The index of the element `target` names on a reading (on or off the screen), or null. */
function findIn(u: Understanding, localId: string, epoch: number, r: Read, target: string, role?: string): number | null {
  const els = r.reading.elements;
  const id = target.startsWith('#') ? target.slice(1) : null;
  const want = target.toLowerCase();
  const i = els.findIndex((e) => (id ? e.id === id : e.label.toLowerCase() === want && (!role || e.role === role)));
  if (i >= 0) return i;
  try {
    return u.locate(localId, epoch, r, target, role).index;
  } catch {
    return null;
  }
}

/** The element a Maestro selector takes on a reading, or null. */
function selectIn(u: Understanding, localId: string, epoch: number, r: Read, select: NonNullable<Schemas['ActionRequest']['select']>): number | null {
  try {
    return u.locate(localId, epoch, r, select).index;
  } catch {
    return null;
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

/** The app's input count where the platform keeps one; null where it cannot tell (or the count failed). */
async function inputCount(device: DeviceBackend): Promise<number | null> {
  if (!device.inputsReceived) return null;
  return device.inputsReceived().catch(() => null);
}

/** Which sensors answered a read: the tree's nodes, the pixel tier's lines (null: not needed). */
export function sensorsOf(read: Read): { tree: number; ocr: { areas: number; lines: number } | null; source: 'tree' | 'memory' } {
  return { tree: read.nodes, ocr: read.ocr ? { areas: read.ocr.areas, lines: read.ocr.lines } : null, source: read.source };
}

/**
 * Until no frame at all has come for a short window (or the deadline). Memory must never learn a
 * half-drawn face, so an action's outcome is read only once the frames have stopped, whatever the
 * settle answer said: a settled answer once came on the first frames of an eased switch (fixed in
 * settle.ts, tested in test/browser/perception.test.ts); this keeps memory safe from the next one.
 * The settle answer already waited out the quiet window for every change that counts; frames still
 * coming are the tail of an easing or a stream that lagged, and a running animation sends one every
 * 16 ms, so a gap of a few frames' length says it has stopped (waiting a whole quiet window again
 * cost every step about 230 ms).
 */
export async function streamQuiet(eyes: Eyes, quietMs: number, deadline: number): Promise<void> {
  const gapMs = Math.min(quietMs, STREAM_GAP_MS);
  for (;;) {
    await eyes.idle();
    const newest = eyes.store.newest();
    const since = newest ? performance.now() - newest.at : Infinity;
    if (since >= gapMs || performance.now() >= deadline) return;
    await new Promise((r) => setTimeout(r, Math.min(gapMs - since + 5, deadline - performance.now())));
  }
}

const STREAM_GAP_MS = 100;

/**
 * "Nothing changed" is checked with the device before it is believed: a frame stream starved under
 * load looks exactly like a screen that did not react. When a probe finds the screen changed, the
 * probe is taken in as motion and the wait runs again from the same mark.
 */
async function doubtNoChange(
  eyes: Eyes,
  w: Awaited<ReturnType<Eyes['wait']>>,
  again: () => ReturnType<Eyes['wait']>,
): Promise<Awaited<ReturnType<Eyes['wait']>>> {
  if (w.status !== 'no-change' || (await eyes.confirmStill())) return w;
  const second = await again();
  return { ...second, waitedMs: w.waitedMs + second.waitedMs };
}
/** How long a screen must rest on the predicted destination's remembered pixels to have arrived. */
const ARRIVAL_QUIET_MS = 100;
