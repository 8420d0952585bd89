// Understanding for every device of this host: reads a leased device's screen into an outline, tells
// which screen it is, and finds the element a target names. A screen that sent no frame since the
// last read is answered from that read (zero tree reads); the screens seen are kept per app.
import type { Logger } from 'pino';
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type TreeSnapshot } from '../devices/backend.js';
import type { Eyes } from '../perception/eyes.js';
import { ScreenBook, type Identified } from './identity.js';
import { outlineJson, outlineText, type OutlineHeader } from './outline.js';
import { locate, parseTarget, type Numbered } from './refs.js';
import { readScreen, type ScreenReading } from './screen.js';

type Schemas = components['schemas'];

interface Read {
  /** The newest frame when the tree was read: the read holds while no later frame arrives. */
  seq: number | undefined;
  reading: ScreenReading;
  identified: Identified;
  at: number;
  treeMs: number;
  buildMs: number;
  nodes: number;
}

interface Watched {
  backend: DeviceBackend;
  last: Read | undefined;
  reading: Promise<Read> | undefined;
  /** The outline each lease epoch was last shown: what its refs (@N) mean. */
  numbered: Map<number, Numbered>;
}

export class Understanding {
  private readonly devices = new Map<string, Watched>();
  private readonly books = new Map<string, ScreenBook>();
  readonly counts = { reads: 0, cached: 0 };

  constructor(
    private readonly eyesOf: (localId: string) => Eyes,
    private readonly logger: Logger,
  ) {}

  watch(devices: { localId: string; backend: DeviceBackend | undefined }[]): void {
    for (const { localId, backend } of devices) {
      if (backend && !this.devices.has(localId)) this.devices.set(localId, { backend, last: undefined, reading: undefined, numbered: new Map() });
    }
  }

  async call(localId: string, epoch: number, method: 'screen.read' | 'screen.locate', params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const d = this.devices.get(localId);
    if (!d) throw new DeviceError('NOT_FOUND', `this host has no device ${localId}`);
    const { read, cached } = await this.current(localId, d);
    const numbered: Numbered = { reading: read.reading, screen: { id: read.identified.node.id, name: read.identified.node.name } };
    if (method === 'screen.read') {
      d.numbered.set(epoch, numbered);
      for (const e of d.numbered.keys()) if (e < epoch) d.numbered.delete(e); // older leases are over
      return this.outline(localId, d, read, cached);
    }
    const p = params as Schemas['LocateRequest'];
    const found = locate(parseTarget(p.target, p.role), numbered, d.numbered.get(epoch));
    const json = outlineJson(read.reading, this.header(localId, d, read));
    return { element: json.elements[found.index]!, screen: this.identity(read), how: found.how } satisfies Schemas['Located'];
  }

  /** The device's screen now: the last read when no frame has arrived since, else a new read. */
  private async current(localId: string, d: Watched): Promise<{ read: Read; cached: boolean }> {
    const eyes = this.eyesOf(localId);
    await eyes.idle();
    const seq = eyes.store.newest()?.seq;
    if (d.last && seq !== undefined && d.last.seq === seq) {
      this.counts.cached++;
      // The screen of the last read, seen again: known now, whatever it was then.
      return { read: { ...d.last, identified: { ...d.last.identified, known: true } }, cached: true };
    }
    d.reading ??= this.read(d, seq).finally(() => (d.reading = undefined));
    return { read: await d.reading, cached: false };
  }

  private async read(d: Watched, seq: number | undefined): Promise<Read> {
    const t0 = performance.now();
    let tree: TreeSnapshot;
    try {
      tree = await d.backend.tree();
    } catch (err) {
      if (err instanceof DeviceError) throw err;
      throw new DeviceError('DEVICE_FAILED', `the accessibility tree could not be read: ${(err as Error).message}`, 'retry; if it keeps failing the device may be broken');
    }
    const t1 = performance.now();
    const reading = readScreen(tree, d.backend.platform);
    const key = `${d.backend.platform}:${d.backend.foreground() ?? 'unknown app'}`;
    let book = this.books.get(key);
    if (!book) this.books.set(key, (book = new ScreenBook()));
    const identified = book.identify(reading.fingerprint, reading.title);
    const t2 = performance.now();
    this.counts.reads++;
    const read: Read = { seq, reading, identified, at: Date.now(), treeMs: round(t1 - t0), buildMs: round(t2 - t1), nodes: tree.nodes.length };
    d.last = read;
    return read;
  }

  private header(localId: string, d: Watched, read: Read): OutlineHeader {
    const s = this.settle(localId);
    return {
      device: `${d.backend.platform} ${d.backend.model}`,
      screenId: read.identified.node.id,
      name: read.identified.node.name,
      known: read.identified.known,
      settle: s.settled ? `settled${s.forMs === null ? '' : ` ${s.forMs}ms`}` : `not settled${s.forMs === null ? '' : ` (moving ${s.forMs}ms)`}`,
    };
  }

  private settle(localId: string): { settled: boolean; forMs: number | null } {
    const a = this.eyesOf(localId).activity;
    const last = a.lastMotion;
    if (a.isSettled()) return { settled: true, forMs: last === undefined ? null : Math.round(performance.now() - last) };
    return { settled: false, forMs: a.movingRegion()?.movingForMs ?? null };
  }

  private identity(read: Read): Schemas['ScreenIdentity'] {
    return { id: read.identified.node.id, name: read.identified.node.name, known: read.identified.known, fingerprint: read.reading.fingerprint.hash };
  }

  private outline(localId: string, d: Watched, read: Read, cached: boolean): Schemas['ScreenOutline'] {
    const header = this.header(localId, d, read);
    const json = outlineJson(read.reading, header);
    const newest = this.eyesOf(localId).store.newest();
    return {
      text: outlineText(read.reading, header),
      device: json.device,
      screen: this.identity(read),
      size: json.size,
      settle: this.settle(localId),
      regions: json.regions,
      lists: json.lists,
      elements: json.elements,
      read: {
        at: new Date(read.at).toISOString(),
        cached,
        nodes: read.nodes,
        treeMs: read.treeMs,
        buildMs: read.buildMs,
        frame: newest ? { seq: newest.seq, at: new Date(newest.wallAt).toISOString(), ageMs: Math.max(0, Math.round(Date.now() - newest.wallAt)) } : null,
      },
    };
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
