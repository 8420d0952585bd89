// Understanding over real eyes (frame store, settle, confirmation) on synthetic frames, with the
// device's tree, its captures and the recogniser stubbed: for tests of what a read does with them.
// The stubs can be slowed, as a starved host slows the real ones. Time is virtual: the stubs' delays
// and every deadline of a read fall at exact instants (helpers/virtual-clock.ts).
import { pino } from 'pino';
import sharp from 'sharp';
import type { DeviceBackend, TreeNode, TreeSnapshot } from '../../workers/devices/backend.js';
import { Eyes } from '../../workers/perception/eyes.js';
import { imagesIdle } from '../../workers/perception/image.js';
import type { TextRecogniser } from '../../workers/understanding/ocr/engine.js';
import { READ_ANSWER_MS, Understanding } from '../../workers/understanding/service.js';
import { SCREEN, SyntheticDevice } from './synthetic-screen.js';
import { VirtualClock } from './virtual-clock.js';

export const QUIET_MS = 150;

/** A game's screen: the tree says nothing but the canvas; the words are only in its pixels. */
export function canvasTree(): TreeSnapshot {
  const canvas: TreeNode = {
    index: 0,
    parent: null,
    role: 'canvas',
    label: '',
    value: null,
    states: {},
    frame: { x: 0, y: 0, width: SCREEN.widthPt, height: SCREEN.heightPt },
    id: 'arcade',
    source: 'web',
    interactive: false,
    unnamed: false,
    offscreen: false,
  };
  return { nodes: [canvas], skippedInvisible: 0, screen: SCREEN, durationMs: 1 };
}

export interface RigDelays {
  /** How long reading the tree takes (ms). */
  treeMs: number;
  /** How long a capture takes (ms). */
  captureMs: number;
  /** The tree read fails with this, after treeMs. */
  treeError?: Error;
  /** How long one round of hit tests takes (ms). */
  hitMs?: number;
}

/** A tab bar along the bottom whose three buttons are hidden from accessibility; hit tests find them. */
export const HIDDEN_TABS = [0, 1, 2].map((i) => ({
  role: 'button',
  label: `Tab ${i}`,
  frame: { x: i * 131, y: 786, width: 131, height: 66 },
  id: null,
  interactive: true,
}));

/** The canvas with the tab bar over its foot, reported with no children. */
export function tabBarTree(): TreeSnapshot {
  const base = canvasTree();
  const canvas = { ...base.nodes[0]!, frame: { x: 0, y: 0, width: SCREEN.widthPt, height: 786 } };
  const bar: TreeNode = {
    index: 1,
    parent: null,
    role: 'tabbar',
    label: '',
    value: null,
    states: {},
    frame: { x: 0, y: 786, width: SCREEN.widthPt, height: 66 },
    id: null,
    source: 'web',
    interactive: false,
    unnamed: false,
    offscreen: false,
  };
  return { ...base, nodes: [canvas, bar] };
}

export async function understandingRig(
  cleanups: (() => void)[],
  opts: {
    readAnswerMs?: number;
    slowReadMs?: number;
    giveUpMs?: number;
    tree?: () => TreeSnapshot;
    recogniserStatus?: Awaited<ReturnType<TextRecogniser['status']>>;
  } = {},
) {
  const logger = pino({ level: 'silent' });
  const clock = new VirtualClock();
  const device = new SyntheticDevice(clock);
  const eyes = new Eyes(device, { retentionMs: 60_000, budgetBytes: 64 << 20, quietMs: QUIET_MS, clock }, logger);
  clock.settleWith(async () => {
    await eyes.quiesced();
    await imagesIdle();
  });
  eyes.start();
  cleanups.push(() => eyes.stop());
  const png = await sharp({ create: { width: SCREEN.widthPt * 2, height: SCREEN.heightPt * 2, channels: 3, background: { r: 20, g: 20, b: 40 } } })
    .png()
    .toBuffer();
  const counts = { trees: 0, captures: 0, recognised: 0 };
  const delays: RigDelays = { treeMs: 0, captureMs: 0 };
  const after = <T>(ms: number, value: () => T) => new Promise<void>((resolve) => (ms ? clock.timeout(resolve, ms) : resolve())).then(value);
  const backend = {
    localId: 'd1',
    platform: 'web',
    model: 'synthetic phone',
    screen: () => SCREEN,
    tree: () => (
      counts.trees++,
      after(delays.treeMs, () => {
        if (delays.treeError) throw delays.treeError;
        return (opts.tree ?? canvasTree)();
      })
    ),
    screenshot: () => (counts.captures++, after(delays.captureMs, () => ({ png, width: SCREEN.widthPt * 2, height: SCREEN.heightPt * 2, scale: 2 }))),
    hitTest: (points: { x: number; y: number }[]) =>
      after(delays.hitMs ?? 0, () =>
        points.map(
          (p) => HIDDEN_TABS.find((t) => p.x >= t.frame.x && p.x < t.frame.x + t.frame.width && p.y >= t.frame.y && p.y < t.frame.y + t.frame.height) ?? null,
        ),
      ),
    foreground: () => 'arcade',
    appVersion: () => '1.0.0',
  } as unknown as DeviceBackend;
  const recogniser: TextRecogniser = {
    status: async () => opts.recogniserStatus ?? { available: true, detail: 'scripted recogniser' },
    recognise: async () => (counts.recognised++, [{ text: 'START', conf: 93, words: [], left: 40, top: 40, width: 120, height: 36 }]),
  };
  const u = new Understanding(() => eyes, logger, undefined, recogniser, {
    readAnswerMs: opts.readAnswerMs ?? READ_ANSWER_MS,
    ...(opts.slowReadMs ? { slowReadMs: opts.slowReadMs } : {}),
    ...(opts.giveUpMs ? { giveUpMs: opts.giveUpMs } : {}),
    clock,
  });
  u.watch([{ localId: 'd1', backend }]);
  return { device, eyes, u, counts, delays, backend, clock };
}
