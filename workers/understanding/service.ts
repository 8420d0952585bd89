// Understanding for every device of this host: reads a leased device's screen into an outline, tells
// which screen it is, and finds the element a target names. A screen that sent no frame since the
// last read is answered from that read; a settled screen whose pixels match a remembered screen of
// the app is answered from memory (zero tree reads); otherwise the tree is read, and what was read on
// a settled screen is remembered.
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type TreeSnapshot } from '../devices/backend.js';
import { type AppMemory, Memories, versionBand } from '../memory/app-memory.js';
import type { MemorySync } from '../memory/sync.js';
import type { FrameAnalysis } from '../perception/analysis.js';
import type { Eyes } from '../perception/eyes.js';
import { exitHints } from './hints.js';
import { withVolatile } from './volatile.js';
import type { Arrival, Identified } from './identity.js';
import { elementJson, outlineJson, outlineText, type OutlineHeader } from './outline.js';
import { locate, parseTarget, type Found, type Numbered } from './refs.js';
import type { Selector } from './select.js';
import { readScreen, type ScreenReading } from './screen.js';
import type { TextRecogniser } from './ocr/engine.js';
import { PIXEL_BUDGET_MS, readPixels } from './ocr/read.js';
import { areasToRead, type OcrArea } from './ocr/where.js';
import { mergeSources } from './merge.js';
import { ANSWER_MARGIN_MS, giveUpAfter, overloaded } from '../overdue.js';
import { LATE, within } from '../within.js';
import { probeContainer, silentContainers } from './probe.js';

/** Containers probed per read, at most: a screen with more silent bars than this is unusual. */
const MAX_PROBED_CONTAINERS = 3;
/**
 * A read slower than this is logged with where its time went: half the gateway's 10 s call
 * timeout, so the reads that come near it are on record before one runs past it.
 */
export const SLOW_READ_MS = 5000;
/**
 * A read from the tree answers within this of its call, the pixel tier cut to fit: the gateway
 * gives a screen read 10 s, and the answer still has its outline to build and its way to go. On a
 * starved host the tree alone took seconds and a capture up to its 6 s bound, and the read ran past
 * the gateway's timeout (149 504s in a 60-minute soak) when it could have answered with the tree
 * and said what it left unread.
 */
export const READ_ANSWER_MS = 8000;
/**
 * A screen read or locate the caller waits for this long is answered HOST_OVERLOADED (overdue.ts),
 * and its read goes on to answer the next call: on a starved host the tree alone took 9-14 s, which
 * no cut of the pixel tier can make up. With the gateway's budget known, a second before it ends.
 */
export const READ_GIVE_UP_MS = 9000;
/** Less time than this left for the pixel tier: no capture is begun; the read says what it left. */
const MIN_PIXEL_MS = 250;
/** A read's note where the text recognition engine cannot run here. */
const UNAVAILABLE = 'text recognition unavailable';

type Schemas = components['schemas'];

export interface Read {
  /** The newest frame when the screen was read: the read holds while no later frame arrives. */
  seq: number | undefined;
  /** When that frame arrived (performance.now): nothing that moved since then, nothing to read again. */
  frameAt: number | undefined;
  /** The frame the reading's words are from (the one it was read on, or memory's remembered one). */
  wordsFrom?: FrameAnalysis;
  reading: ScreenReading;
  identified: Identified;
  memory: AppMemory;
  /** Where it came from: the device's tree, or memory after the pixels agreed. */
  source: 'tree' | 'memory';
  at: number;
  treeMs: number;
  buildMs: number;
  nodes: number;
  /** Said when memory predicted one screen and the pixels or the tree said otherwise. */
  disagreement: string | null;
  /** A modal layer this app's memory had not seen before this read. */
  newModal: boolean;
  /**
   * A caller got this read. A read that went on after its callers gave up (HOST_OVERLOADED) is
   * served to the next call even when its pixel tier was cut short: it is what they would have had,
   * and reading again would be as slow and end the same way.
   */
  claimed?: boolean;
  /** Hit-test probing, when the tree reported containers empty that visibly are not. */
  probe?: { containers: number; probes: number; found: number; moving?: true; unprobed?: number } | null;
  /** Where a read from the tree spent its time, in ms (logged for slow reads). */
  phases?: { tree: number; probe: number; pixels: number; capture?: number };
  /** The pixel tier, when the tree left parts of the screen unexplained: areas read, lines found, time. */
  ocr?: { areas: number; lines: number; ms: number; why?: OcrArea['why']; unavailable?: string; unread?: number; moving?: true } | null;
}

interface Watched {
  backend: DeviceBackend;
  last: Read | undefined;
  reading: Promise<Read> | undefined;
  /** The outline each lease epoch was last shown: what its refs (@N) mean. */
  numbered: Map<number, Numbered>;
  /** Tree reads per lease epoch: what memory saves is counted here. */
  treeReads: Map<number, number>;
}

export interface CurrentOptions {
  /** Screens memory expects (an action's predicted destination): tried first for a warm read. */
  expect?: string[];
  /** The caller saw the screen come to rest on an expected face (an action's arrival): read it now. */
  arrived?: boolean;
  /** Read the tree, whatever the last read or memory would say (a destructive target must be seen live). */
  live?: boolean;
  /** Fires when the caller stopped waiting: the read goes on, and is kept for the next call. */
  signal?: AbortSignal;
  /** The action that led here, from which screen (its graph key), for identity's transition evidence. */
  via?: { from: string; action: string };
}

export class Understanding {
  private readonly devices = new Map<string, Watched>();
  readonly memories: Memories;
  /**
   * Reads by kind, and the host's strain: reads slower than the slow mark, reads that answered
   * without all the text drawn in pixels because it did not fit in their time, and calls answered
   * HOST_OVERLOADED because their read was not done in time (heartbeats carry all three).
   */
  readonly counts = { treeReads: 0, memoryReads: 0, cached: 0, ocrReads: 0, slowReads: 0, cutShort: 0, overdue: 0 };
  /** Told of every fresh read (from the tree or from memory): the event stream names the screen. */
  onRead: ((localId: string, epoch: number, read: Read) => void) | undefined;
  private readonly clock: Clock;

  constructor(
    private readonly eyesOf: (localId: string) => Eyes,
    private readonly logger: Logger,
    sync?: MemorySync,
    /** Reads text in pixels where the tree leaves something unsaid; without one, the tree is all. */
    private readonly recogniser?: TextRecogniser,
    private readonly timing: { readAnswerMs: number; slowReadMs?: number; giveUpMs?: number; clock?: Clock } = { readAnswerMs: READ_ANSWER_MS },
  ) {
    this.memories = new Memories(sync);
    this.clock = timing.clock ?? systemClock;
  }

  watch(devices: { localId: string; backend: DeviceBackend | undefined }[]): void {
    for (const { localId, backend } of devices) {
      if (backend && !this.devices.has(localId))
        this.devices.set(localId, { backend, last: undefined, reading: undefined, numbered: new Map(), treeReads: new Map() });
    }
  }

  /** `budgetMs`: how long the gateway waits for this answer (the call's budget), when it said. */
  async call(
    localId: string,
    epoch: number,
    team: string,
    method: 'screen.read' | 'screen.locate',
    params: Record<string, unknown>,
    budgetMs?: number,
  ): Promise<Record<string, unknown>> {
    const giveUpMs = giveUpAfter(budgetMs, this.timing.giveUpMs ?? READ_GIVE_UP_MS);
    const { read, cached } = await this.inTime(localId, giveUpMs, (signal) =>
      this.current(localId, epoch, team, { signal, answerMs: giveUpMs - Math.min(ANSWER_MARGIN_MS, giveUpMs / 4), live: params.live === true }),
    );
    if (method === 'screen.read') {
      this.number(localId, epoch, read);
      return this.outline(localId, epoch, read, cached);
    }
    const p = params as Schemas['LocateRequest'];
    const found = this.locate(localId, epoch, read, p.target, p.role);
    return { element: this.elementJson(read, found.index), screen: identity(read), how: found.how } satisfies Schemas['Located'];
  }

  /**
   * The read's answer, or HOST_OVERLOADED once the caller has waited `giveUpMs`. The read is not
   * stopped: the tree read cannot be, and the retry the refusal asks for joins it or is answered
   * from it, where starting over would be as slow again.
   */
  private async inTime<T>(localId: string, giveUpMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const gaveUp = new AbortController();
    // `within` holds the answer: a read failing after its caller was refused is no unhandled rejection.
    const answer = await within(work(gaveUp.signal), giveUpMs, this.clock);
    if (answer !== LATE) return answer;
    gaveUp.abort();
    this.counts.overdue++;
    this.logger.warn({ localId, giveUpMs }, 'a screen read was not done in time; the caller is told HOST_OVERLOADED and the read goes on');
    throw overloaded('the screen was not read', giveUpMs, 'the read goes on, and the next request joins it or is answered from it');
  }

  /** The device's screen now: the last read when no frame has arrived since; else memory; else the tree. */
  async current(localId: string, epoch: number, team: string, opts: CurrentOptions & { answerMs?: number } = {}): Promise<{ read: Read; cached: boolean }> {
    const d = this.device(localId);
    const eyes = this.eyesOf(localId);
    const began = this.clock.now();
    await eyes.idle();
    const idleMs = this.clock.now() - began;
    const newest = eyes.store.newest();
    const seq = newest?.seq;
    // The screen of the last read when no frame came since, or none that moved anything (a clock
    // tick, a caret, a trailing frame just after an action's arrival): perception's own definition
    // of a change decides, so a frame that changes nothing costs no second read.
    const lastMotion = eyes.activity.lastMotion;
    const unmoved = d.last?.frameAt !== undefined && (lastMotion === undefined || lastMotion <= d.last.frameAt);
    // A read made with a memory the farm has since forgotten is not served again: its screen and graph
    // are gone, and serving it would carry them into the next action (a prediction, a "known" screen).
    // A read whose text recognition stopped at its budget is not served again either: the next read
    // goes on where it stopped (the areas it finished come back from the recognition cache). Nor is
    // one that skipped the pixel tiers on a moving screen: the next read runs them.
    // Nor one whose pixel tier was cut short, unless no caller ever had it (see Read.claimed).
    if (!opts.live && d.last && !d.last.memory.forgotten && (!incomplete(d.last) || !d.last.claimed) && seq !== undefined && (d.last.seq === seq || unmoved)) {
      this.counts.cached++;
      if (!opts.signal?.aborted) d.last.claimed = true;
      // The screen of the last read, seen again: known now, whatever it was then; its words inside a
      // region that changed by itself since (a clock) are not served as current.
      const reading = withVolatile(d.last.reading, d.last.wordsFrom, newest, eyes.store.recent(2000));
      return { read: { ...d.last, reading, identified: { ...d.last.identified, known: true } }, cached: true };
    }
    // An app's memory is per version band: a new major version may have moved everything.
    const tm = this.clock.now();
    const memory = await this.memories.ensure(team, d.backend.platform, `${d.backend.foreground() ?? 'unknown app'}@${versionBand(d.backend.appVersion?.())}`);
    const memoryMs = this.clock.now() - tm;
    if (!opts.live && newest && (opts.arrived || eyes.activity.isSettled())) {
      const t0 = this.clock.now();
      const match = memory.matchPixels(newest, opts.expect);
      if (match) {
        this.counts.memoryReads++;
        const node = memory.book.node(match.node)!;
        memory.confirm(match.node, match.remembered.reading);
        const read: Read = {
          seq,
          frameAt: newest.at,
          reading: withVolatile(match.remembered.reading, match.remembered.signature, newest, eyes.store.recent(2000)),
          wordsFrom: match.remembered.signature,
          identified: { node, known: true, similarity: 1 },
          memory,
          source: 'memory',
          at: this.clock.wall(),
          treeMs: 0,
          buildMs: round(this.clock.now() - t0),
          nodes: match.remembered.reading.nodeCount,
          disagreement: null,
          newModal: false,
        };
        d.last = read;
        this.onRead?.(localId, epoch, read);
        return { read, cached: false };
      }
    }
    // A read already going answers this call too: it began earlier, so it ends sooner.
    const joined = d.reading !== undefined;
    d.reading ??= this.readTree(d, epoch, seq, newest?.at, memory, opts, began + Math.min(this.timing.readAnswerMs, opts.answerMs ?? Infinity))
      .then((read) => {
        this.onRead?.(localId, epoch, read);
        return read;
      })
      .finally(() => (d.reading = undefined));
    const read = await d.reading;
    if (!opts.signal?.aborted) read.claimed = true;
    const ms = this.clock.now() - began;
    const slowMs = this.timing.slowReadMs ?? SLOW_READ_MS;
    if (ms > slowMs) {
      this.counts.slowReads++;
      const phases = { idle: Math.round(idleMs), memory: Math.round(memoryMs), ...read.phases };
      this.logger.info(
        {
          localId,
          ms: Math.round(ms),
          joined,
          phases,
          nodes: read.nodes,
          ocrAreas: read.ocr?.areas ?? 0,
          ...(opts.signal?.aborted ? { callerGaveUp: true } : {}),
        },
        `a screen read took longer than ${slowMs / 1000} s`,
      );
    }
    return { read, cached: false };
  }

  /** Numbers a reading for a lease: its refs are what @N means until the next outline. */
  number(localId: string, epoch: number, read: Read): void {
    const d = this.device(localId);
    d.numbered.set(epoch, numberedOf(read));
    for (const e of d.numbered.keys()) if (e < epoch) d.numbered.delete(e); // older leases are over
  }

  /** target: a target string, or a Maestro selector (a step's `select`). */
  locate(localId: string, epoch: number, read: Read, target: string | Selector, role?: string, index?: number): Found {
    try {
      const parsed = typeof target === 'string' ? parseTarget(target, role, index) : { kind: 'select' as const, select: target };
      return locate(parsed, numberedOf(read), this.device(localId).numbered.get(epoch));
    } catch (err) {
      // "Nothing matches" from a read that left drawn text unread is not the screen's answer yet.
      const unread = read.ocr?.unread;
      if (!(err instanceof DeviceError) || err.code !== 'NO_MATCH' || !incomplete(read)) throw err;
      if (read.ocr?.moving || read.probe?.moving) {
        throw new DeviceError(
          'NO_MATCH',
          `${err.message} (the screen was still moving when it was read, so ${[read.ocr?.moving ? 'text drawn in pixels' : null, read.probe?.moving ? 'controls the tree hides' : null].filter(Boolean).join(' and ')} could not be looked for)`,
          'wait for the screen to settle, then ask again',
          { ...err.details, moving: true, ...(unread ? { ocrUnread: unread } : {}) },
        );
      }
      const unprobed = read.probe?.unprobed;
      const short = [
        unread
          ? `text recognition stopped at its time budget with ${unread} of ${read.ocr!.areas} area${read.ocr!.areas === 1 ? '' : 's'} unread: words drawn there are not known yet`
          : null,
        unprobed
          ? `hit-test probing stopped at the read's time with ${unprobed} of ${read.probe!.containers} container${read.probe!.containers === 1 ? '' : 's'} the tree reports empty not probed, or only in part: controls it hides there are not known yet`
          : null,
      ].filter(Boolean);
      throw new DeviceError('NO_MATCH', `${err.message} (${short.join('; ')})`, unread ? 'ask again: each read goes on where the last stopped' : 'ask again', {
        ...err.details,
        ...(unread ? { ocrUnread: unread } : {}),
        ...(unprobed ? { unprobed } : {}),
      });
    }
  }

  treeReads(localId: string, epoch: number): number {
    return this.device(localId).treeReads.get(epoch) ?? 0;
  }

  elementJson(read: Read, index: number): Schemas['OutlineElement'] {
    return elementJson(read.reading, index);
  }

  private device(localId: string): Watched {
    const d = this.devices.get(localId);
    if (!d) throw new DeviceError('NOT_FOUND', `this host has no device ${localId}`);
    return d;
  }

  private async readTree(
    d: Watched,
    epoch: number,
    seq: number | undefined,
    frameAt: number | undefined,
    memory: AppMemory,
    opts: CurrentOptions,
    deadline: number,
  ): Promise<Read> {
    const t0 = this.clock.now();
    const eyes = this.eyesOf(d.backend.localId);
    let tree = await this.treeOf(d, epoch);
    const tTree = this.clock.now();
    // The tiers hold the tree against the newest frame, so they run on settled screens only; on a
    // moving screen the two show different moments. A read that needed them there says so and is
    // not the screen's answer: skipping them silently once left a canvas's words out of a read that
    // was then served again ("nothing matches START"). It does not wait for the settle: on a busy
    // host that is up to a second on every read mid-motion, actions' own reads included.
    const probed = await this.probeTier(d, tree, deadline);
    tree = probed.tree;
    const tProbe = this.clock.now();
    const pixels = await this.pixelTier(d, tree, deadline);
    tree = pixels.tree;
    const t1 = this.clock.now();
    const phases = {
      tree: Math.round(tTree - t0),
      probe: Math.round(tProbe - tTree),
      pixels: Math.round(t1 - tProbe),
      ...(pixels.captureMs === undefined ? {} : { capture: pixels.captureMs }),
    };
    const reading = readScreen(tree, d.backend.platform);
    const identified = memory.book.identify(reading.fingerprint, reading.title, arrivalOf(d.last, memory, eyes, opts.via));
    const t2 = this.clock.now();
    // Memory expected this screen and the tree agrees, but the pixels did not: say so (two screens
    // sharing a fingerprint is the usual cause; new content is the benign one).
    const disagreement =
      opts.expect?.includes(identified.node.id) && memory.recall(identified.node.id)
        ? `screen ${identified.node.id} does not look as remembered; read from the tree`
        : null;
    const newModal = !memory.familiarModal(reading);
    memory.noteModal(reading);
    // Memory learns from settled screens only: a screen half drawn would teach it a face it never has.
    // A frame that came in while the tree was read counts as the same screen when perception saw no
    // motion since the frame the read began on (a trailing repaint after a switch's animation);
    // requiring the very same frame left such screens unlearnt, and every later visit read the tree.
    const newest = eyes.store.newest();
    const lastMotion = eyes.activity.lastMotion;
    const sameScreen = newest !== undefined && (newest.seq === seq || (frameAt !== undefined && (lastMotion === undefined || lastMotion <= frameAt)));
    // Nor from a read whose pixel tiers were cut short or skipped: memory would serve its missing
    // words and controls as the screen's, to every later session.
    const read: Read = {
      seq,
      frameAt,
      ...(seq !== undefined && eyes.store.range(seq, seq)[0] ? { wordsFrom: eyes.store.range(seq, seq)[0] } : {}),
      reading,
      identified,
      memory,
      source: 'tree',
      at: this.clock.wall(),
      treeMs: round(t1 - t0),
      buildMs: round(t2 - t1),
      nodes: tree.nodes.length,
      disagreement,
      newModal,
      ocr: pixels.ocr,
      probe: probed.probe,
      phases,
    };
    // Once per read, whichever tier ran out of time (both may have, and each logs why).
    if ((read.ocr?.unread && !read.ocr.moving) || read.probe?.unprobed) this.counts.cutShort++;
    if (newest && sameScreen && eyes.activity.isSettled() && !incomplete(read)) memory.remember(identified.node.id, reading, newest);
    else if (identified.known) memory.confirm(identified.node.id); // recognised, but nothing settled to learn from
    d.last = read;
    return read;
  }

  private async treeOf(d: Watched, epoch: number): Promise<TreeSnapshot> {
    let tree: TreeSnapshot;
    try {
      tree = await d.backend.tree();
    } catch (err) {
      if (err instanceof DeviceError) throw err;
      throw new DeviceError(
        'DEVICE_FAILED',
        `the accessibility tree could not be read: ${(err as Error).message}`,
        'retry; if it keeps failing the device may be broken',
      );
    }
    d.treeReads.set(epoch, (d.treeReads.get(epoch) ?? 0) + 1);
    this.counts.treeReads++;
    return tree;
  }

  /**
   * The platform's hit test inside containers the tree reports empty though pixels show something
   * in them (a tab bar whose buttons are hidden from accessibility). Runs before text recognition:
   * what probing finds, the pixel tier need not read. Settled screens only, like the pixel tier.
   */
  private async probeTier(d: Watched, tree: TreeSnapshot, deadline: number): Promise<{ tree: TreeSnapshot; probe: Read['probe'] }> {
    const hitTest = d.backend.hitTest?.bind(d.backend);
    const eyes = this.eyesOf(d.backend.localId);
    const newest = eyes.store.newest();
    if (!hitTest || !newest) return { tree, probe: null };
    const silent = silentContainers(tree.nodes, tree.screen, { width: newest.gridW, height: newest.gridH, data: newest.gray }).slice(0, MAX_PROBED_CONTAINERS);
    if (silent.length === 0) return { tree, probe: null };
    // Mid-motion, what looks silent may be a control sliding in; probing it would learn nothing true.
    if (!eyes.activity.isSettled()) return { tree, probe: { containers: silent.length, probes: 0, found: 0, moving: true } };
    const nodes = [...tree.nodes];
    let probes = 0;
    let done = 0;
    try {
      for (const c of silent) {
        const r = await probeContainer(c, hitTest, nodes.length, deadline, this.clock);
        probes += r.probes;
        nodes.push(...r.nodes);
        if (r.cut) break;
        done++;
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'hit-test probing failed; the tree is read as it is');
      return { tree, probe: { containers: silent.length, probes, found: 0 } };
    }
    const found = nodes.length - tree.nodes.length;
    const unprobed = silent.length - done;
    if (unprobed)
      this.logger.info(
        { localId: d.backend.localId, containers: silent.length, unprobed, probes, found },
        "hit-test probing stopped at the read's time; the read answers with what it found",
      );
    else this.logger.debug({ containers: silent.length, probes, found }, 'probed containers the tree reported empty');
    return { tree: { ...tree, nodes }, probe: { containers: silent.length, probes, found, ...(unprobed ? { unprobed } : {}) } };
  }

  /**
   * Text recognition where the tree leaves visible parts of the screen unexplained (or says
   * nothing at all), merged into the tree by containment. A recogniser that is missing or fails
   * leaves the tree as it is, and the read says so.
   */
  private async pixelTier(d: Watched, tree: TreeSnapshot, deadline: number): Promise<{ tree: TreeSnapshot; ocr: Read['ocr']; captureMs?: number }> {
    if (!this.recogniser) return { tree, ocr: null };
    // Only on a settled screen: mid-transition, the newest frame and the tree show different
    // moments, every moving part looks unexplained, and seconds of recognition would be spent on
    // a screen that is about to be read again anyway.
    const eyes = this.eyesOf(d.backend.localId);
    const newest = eyes.store.newest();
    if (!newest) return { tree, ocr: null };
    const areas = areasToRead(tree.nodes, tree.screen, { width: newest.gridW, height: newest.gridH, data: newest.gray });
    if (areas.length === 0) return { tree, ocr: null };
    if (!eyes.activity.isSettled()) return { tree, ocr: { areas: areas.length, lines: 0, ms: 0, unread: areas.length, why: areas[0]!.why, moving: true } };
    const status = await this.recogniser.status();
    // The outline says only that it is unavailable: how to install it is said once (banner, /v1/hosts, docs).
    if (!status.available) return { tree, ocr: { areas: areas.length, lines: 0, ms: 0, unavailable: UNAVAILABLE } };
    // What the read has left of its time, at most the tier's own budget; the capture counts in it.
    const budgetMs = Math.min(PIXEL_BUDGET_MS, deadline - this.clock.now());
    if (budgetMs < MIN_PIXEL_MS) {
      this.logger.info(
        { localId: d.backend.localId, areas: areas.length, leftMs: Math.round(budgetMs) },
        'no time left for text recognition; the read answers with the tree',
      );
      return { tree, ocr: { areas: areas.length, lines: 0, ms: 0, unread: areas.length, why: areas[0]!.why } };
    }
    try {
      const pixels = await readPixels(d.backend, areas, this.recogniser, tree.nodes.length, budgetMs, this.clock);
      this.counts.ocrReads++;
      const merged = mergeSources(tree, { ...tree, nodes: pixels.nodes }).tree;
      if (pixels.unread) {
        this.logger.info(
          {
            localId: d.backend.localId,
            areas: areas.length,
            unread: pixels.unread,
            ms: pixels.ms,
            budgetMs: Math.round(budgetMs),
            captureMs: pixels.captureMs,
          },
          pixels.captureLate ? "the screen was not captured within the read's time; the read answers with the tree" : 'text recognition stopped at its budget',
        );
      }
      return {
        tree: merged,
        captureMs: pixels.captureMs,
        ocr: { areas: areas.length, lines: pixels.nodes.length, ms: pixels.ms, why: areas[0]!.why, ...(pixels.unread ? { unread: pixels.unread } : {}) },
      };
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'text recognition failed; the tree is read alone');
      return { tree, ocr: { areas: areas.length, lines: 0, ms: 0, unavailable: (err as Error).message } };
    }
  }

  /**
   * `settled`: what the caller's own wait concluded (an action's settle, perhaps by arrival on a
   * remembered face): the header then says the same, where the eyes' tracker, with its longer
   * window, may not have caught up yet.
   */
  header(localId: string, read: Read, settled?: { settled: boolean; movingForMs?: number }): OutlineHeader {
    const d = this.device(localId);
    const own = this.settle(localId);
    const s =
      settled === undefined
        ? own
        : settled.settled
          ? { settled: true, forMs: own.settled ? own.forMs : null }
          : { settled: false, forMs: settled.movingForMs ?? own.forMs };
    // Every note that applies, in this order: one used to overwrite another (a budget cut hid that
    // the tree contradicts the pixels).
    const notes = [
      read.ocr?.why === 'contradicted'
        ? `the tree does not match the pixels (most of its labelled elements show nothing where it puts them): ${read.ocr.lines ? `~ text read from the whole screen (${read.ocr.lines} line${read.ocr.lines === 1 ? '' : 's'})` : 'nothing could be read from them either'}`
        : read.ocr?.lines
          ? `~ text read from pixels (${read.ocr.lines} line${read.ocr.lines === 1 ? '' : 's'} in ${read.ocr.areas} area${read.ocr.areas === 1 ? '' : 's'} the tree leaves unexplained)`
          : null,
      read.ocr?.unavailable === UNAVAILABLE
        ? `${UNAVAILABLE} (${read.ocr.areas} area${read.ocr.areas === 1 ? '' : 's'} the tree leaves unexplained not read)`
        : read.ocr?.unavailable
          ? `parts of the screen the tree does not explain could not be read: ${read.ocr.unavailable}`
          : null,
      read.ocr?.moving || read.probe?.moving
        ? `the screen was still moving: ${[read.ocr?.moving ? `${read.ocr.areas} area${read.ocr.areas === 1 ? '' : 's'} the tree leaves unexplained not read from pixels` : null, read.probe?.moving ? `${read.probe.containers} container${read.probe.containers === 1 ? '' : 's'} the tree reports empty not probed` : null].filter(Boolean).join(', ')}; read again once it settles`
        : null,
      read.probe?.unprobed
        ? `hit-test probing stopped at the read's time (a read answers within ${READ_ANSWER_MS / 1000} s): ${read.probe.unprobed} of ${read.probe.containers} container${read.probe.containers === 1 ? '' : 's'} the tree reports empty not probed, or only in part; read again`
        : null,
      read.ocr?.unread && !read.ocr.moving
        ? `text recognition stopped at its time budget (${PIXEL_BUDGET_MS / 1000} s, less when the tree was slow; a read answers within ${READ_ANSWER_MS / 1000} s): ${read.ocr.unread} of ${read.ocr.areas} area${read.ocr.areas === 1 ? '' : 's'} the tree leaves unexplained not read; read again to go on`
        : null,
      read.source === 'memory' ? 'from memory (pixels agree)' : null,
      read.disagreement,
    ].filter((n): n is string => !!n);
    return {
      device: `${d.backend.platform} ${d.backend.model}`,
      screenId: read.identified.node.id,
      name: read.identified.node.name,
      known: read.identified.known,
      settle: s.settled ? `settled${s.forMs === null ? '' : ` ${s.forMs}ms`}` : `not settled${s.forMs === null ? '' : ` (moving ${s.forMs}ms)`}`,
      ...this.hints(read),
      ...(notes.length ? { note: notes.join('; ') } : {}),
    };
  }

  /** What the graph knows of this screen (hints.ts): its exits, and what worked here before. */
  private hints(read: Read): Pick<OutlineHeader, 'exits' | 'workedBefore'> {
    return exitHints(read.memory.graph, read.identified.node.id, read.reading);
  }

  settle(localId: string): { settled: boolean; forMs: number | null } {
    const a = this.eyesOf(localId).activity;
    const last = a.lastMotion;
    if (a.isSettled()) return { settled: true, forMs: last === undefined ? null : Math.round(this.clock.now() - last) };
    return { settled: false, forMs: a.movingRegion()?.movingForMs ?? null };
  }

  outline(localId: string, epoch: number, read: Read, cached: boolean): Schemas['ScreenOutline'] {
    const header = this.header(localId, read);
    const json = outlineJson(read.reading, header);
    const newest = this.eyesOf(localId).store.newest();
    return {
      text: outlineText(read.reading, header),
      device: json.device,
      screen: identity(read),
      size: json.size,
      settle: this.settle(localId),
      regions: json.regions,
      lists: json.lists,
      elements: json.elements,
      read: {
        at: new Date(read.at).toISOString(),
        cached,
        source: read.source,
        sessionTreeReads: this.treeReads(localId, epoch),
        nodes: read.nodes,
        treeMs: read.treeMs,
        buildMs: read.buildMs,
        frame: newest
          ? { seq: newest.seq, at: new Date(newest.wallAt).toISOString(), ageMs: Math.max(0, Math.round(this.clock.wall() - newest.wallAt)) }
          : null,
        ...(read.ocr ? { ocr: read.ocr } : {}),
        ...(read.probe ? { probe: read.probe } : {}),
      },
    };
  }
}

export function identity(read: Read): Schemas['ScreenIdentity'] {
  return { id: read.identified.node.id, name: read.identified.node.name, known: read.identified.known, fingerprint: read.reading.fingerprint.hash };
}

/** A read whose pixel tiers stopped at their budget or were skipped on a moving screen: not the screen's whole answer. */
function incomplete(read: Read): boolean {
  return !!read.ocr?.unread || !!read.probe?.moving || !!read.probe?.unprobed;
}

function numberedOf(read: Read): Numbered {
  return { reading: read.reading, screen: { id: read.identified.node.id, name: read.identified.node.name } };
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Where this read arrives from: the screen of the read before on this device (same app's memory),
 * and whether every transition the eyes classified since was a scroll.
 */
function arrivalOf(previous: Read | undefined, memory: AppMemory, eyes: Eyes, via: CurrentOptions['via']): Arrival | undefined {
  if (!previous || previous.memory !== memory || previous.seq === undefined) return undefined;
  const since = eyes.activity.transitionsAfter(previous.seq);
  // Row ids differ only by their digits (row_3, row_7): one template, one transition.
  const template = (action: string) => action.replace(/\d+/g, '#');
  return {
    from: via?.from ?? previous.identified.node.id,
    scrolled: since.length > 0 && since.every((t) => t.kind === 'scroll'),
    reached: (from, to) => via !== undefined && memory.graph.exits(from).some((e) => e.to === to && template(e.action) === template(via.action)),
  };
}
