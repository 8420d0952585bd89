// Touch paths (in dp) played on an emulator, in device pixels. Two ways in:
//  - the emulator console, frame by frame at each frame's atMs. One finger goes through
//    `event mouse <x> <y> 0 <buttons>` (device 0 is the touch screen; buttons 1 while down, 0 on
//    lift; display pixels). Several fingers go through `event send` as Linux multi-touch
//    "protocol B" (slot, tracking id, pressure, position, then SYN_REPORT), with positions scaled
//    to 0..32767: the emulator's virtio multi-touch device reports that axis range, and its own
//    touch sender (TouchEventSender.cpp) scales display pixels to it the same way. Codes are sent
//    as numbers (EV_ABS=3, ABS_MT_SLOT=47, ABS_MT_TRACKING_ID=57, ABS_MT_PRESSURE=58,
//    ABS_MT_POSITION_X/Y=53/54, EV_SYN=0, SYN_REPORT=0), which `event send` accepts as well as names;
//  - adb's `input`, stroke by stroke: `input tap` for a short touch in place, `input swipe x y x y ms`
//    for a long press, `input swipe x1 y1 x2 y2 ms` for a straight one-finger drag, and
//    `input motionevent DOWN|MOVE|UP` for any other path (only Android 11 and later have it).
//    Each `input` starts a Java process on the device (~0.1–0.3 s), so these paths keep their
//    shape but not their timing, and several fingers cannot be played this way at all.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeviceError, type Point, type TouchFrame } from '../backend.js';
import { type Adb, firstLine } from './adb.js';
import type { EmulatorConsole } from './console.js';
import type { PixelSize } from './shell-output.js';

const AXIS_MAX = 0x7fff;
const PRESSURE = 0x400;
/** A touch shorter than this that stays in place is a tap; longer, a long press. */
const TAP_MAX_MS = 250;
/** How far (dp) a path may stray from its chord and still be played as a straight swipe. */
const STRAIGHT_DP = 1;
/** A path that rests at its end this long before lifting needs motionevent to keep the rest. */
const DWELL_MS = 50;
const MAX_MOTION_MOVES = 12;

export interface Stroke {
  startMs: number;
  endMs: number;
  points: { atMs: number; x: number; y: number }[];
}

const maxFingers = (frames: TouchFrame[]): number => Math.max(0, ...frames.map((f) => f.touches.length));
const px = (v: number, density: number): number => Math.round(v * density);

/** Plays the frames on the console with their timing. */
export async function playOnConsole(emulator: EmulatorConsole, frames: TouchFrame[], density: number, screen: PixelSize): Promise<void> {
  const multi = maxFingers(frames) > 1;
  const down = new Map<number, Point>();
  const slots = new Map<number, number>();
  const started = performance.now();
  // A gesture that ends with fingers down would leave them pressed on the emulator: lift them.
  const final = frames.at(-1);
  const played = final && final.touches.length > 0 ? [...frames, { atMs: final.atMs, touches: [] }] : frames;
  for (const frame of played) {
    const wait = started + frame.atMs - performance.now();
    if (wait > 1) await sleep(wait);
    const now = new Map(frame.touches.map((t) => [t.id, { x: px(t.x, density), y: px(t.y, density) }]));
    if (!multi) {
      const [p] = now.values();
      const last = down.get(-1);
      if (p) {
        await emulator.command(`event mouse ${p.x} ${p.y} 0 1`);
        down.set(-1, p);
      } else if (last) {
        await emulator.command(`event mouse ${last.x} ${last.y} 0 0`);
        down.delete(-1);
      }
      continue;
    }
    const events: string[] = [];
    for (const [id, p] of now) {
      let slot = slots.get(id);
      const fresh = slot === undefined;
      if (slot === undefined) {
        slot = freeSlot(slots);
        slots.set(id, slot);
      }
      const prev = down.get(id);
      if (!fresh && prev && prev.x === p.x && prev.y === p.y) continue;
      events.push(`3:47:${slot}`);
      if (fresh) events.push(`3:57:${slot}`);
      events.push(`3:58:${PRESSURE}`, `3:53:${scale(p.x, screen.width)}`, `3:54:${scale(p.y, screen.height)}`);
      down.set(id, p);
    }
    for (const [id, slot] of slots) {
      if (now.has(id)) continue;
      events.push(`3:47:${slot}`, '3:58:0', '3:57:-1');
      slots.delete(id);
      down.delete(id);
    }
    if (events.length > 0) await emulator.command(`event send ${events.join(' ')} 0:0:0`);
  }
}

function freeSlot(slots: Map<number, number>): number {
  const used = new Set(slots.values());
  for (let s = 0; s < 10; s++) if (!used.has(s)) return s;
  throw new DeviceError('VALIDATION_FAILED', 'the emulator tracks at most 10 fingers');
}

const scale = (v: number, extent: number): number => Math.max(0, Math.min(AXIS_MAX, Math.round((v * AXIS_MAX) / Math.max(1, extent))));

/** The gesture as strokes of one finger each: from a touch-down to its lift. */
export function strokes(frames: TouchFrame[]): Stroke[] {
  const out: Stroke[] = [];
  let current: Stroke | undefined;
  for (const f of frames) {
    const t = f.touches[0];
    if (t) {
      current ??= { startMs: f.atMs, endMs: f.atMs, points: [] };
      current.points.push({ atMs: f.atMs, x: t.x, y: t.y });
      current.endMs = f.atMs;
    } else if (current) {
      current.endMs = f.atMs;
      out.push(current);
      current = undefined;
    }
  }
  if (current) out.push(current);
  return out;
}

/**
 * The `input` commands for one stroke (in dp, played in px). Throws for several fingers, which
 * `input` cannot play.
 */
export function adbStrokeCommand(stroke: Stroke, density: number): string {
  const first = stroke.points[0]!;
  const last = stroke.points.at(-1)!;
  const duration = Math.max(1, Math.round(stroke.endMs - stroke.startMs));
  const [x1, y1, x2, y2] = [px(first.x, density), px(first.y, density), px(last.x, density), px(last.y, density)];
  const inPlace = stroke.points.every((p) => Math.hypot(p.x - first.x, p.y - first.y) <= STRAIGHT_DP);
  if (inPlace) return duration <= TAP_MAX_MS ? `input tap ${x1} ${y1}` : `input swipe ${x1} ${y1} ${x1} ${y1} ${duration}`;
  const arrived = stroke.points.find((p) => Math.hypot(p.x - last.x, p.y - last.y) <= STRAIGHT_DP)!;
  if (isStraight(stroke) && stroke.endMs - arrived.atMs < DWELL_MS) return `input swipe ${x1} ${y1} ${x2} ${y2} ${duration}`;
  const moves = sample(stroke.points.slice(1), MAX_MOTION_MOVES);
  return [
    `input motionevent DOWN ${x1} ${y1}`,
    ...moves.map((p) => `input motionevent MOVE ${px(p.x, density)} ${px(p.y, density)}`),
    `input motionevent UP ${x2} ${y2}`,
  ].join('; ');
}

/** Plays one-finger strokes through `input`, each starting at its time (as far as `input` allows). */
export async function playOnAdb(adb: Adb, serial: string, frames: TouchFrame[], density: number): Promise<void> {
  const started = performance.now();
  for (const stroke of strokes(frames)) {
    const wait = started + stroke.startMs - performance.now();
    if (wait > 1) await sleep(wait);
    const command = adbStrokeCommand(stroke, density);
    const { out } = await adb.shellResult(serial, command);
    if (/Usage: input|Unknown command|Error: Unknown/i.test(out)) {
      throw new DeviceError(
        'DEVICE_FAILED',
        `${serial} does not understand \`${command.split(';')[0]}\`: ${firstLine(out)}`,
        '`input motionevent` needs Android 11 or later; with the emulator console reachable, touches go through it instead',
      );
    }
  }
}

export function assertOneFinger(frames: TouchFrame[], why: string): void {
  const n = maxFingers(frames);
  if (n > 1)
    throw new DeviceError(
      'DEVICE_FAILED',
      `a ${n}-finger gesture needs the emulator console, which is not available here: ${why}`,
      'adb `input` plays one finger only; make the emulator console reachable (a local emulator, its auth token in consoleTokenFile)',
    );
}

function isStraight(stroke: Stroke): boolean {
  const a = stroke.points[0]!;
  const b = stroke.points.at(-1)!;
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  return stroke.points.every((p) => Math.abs((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)) / len <= STRAIGHT_DP);
}

/** At most n points, evenly spread, always keeping the last (where the finger rests before lifting). */
function sample<T>(points: T[], n: number): T[] {
  if (points.length <= n) return points;
  const out: T[] = [];
  for (let i = 1; i <= n; i++) out.push(points[Math.round((i * (points.length - 1)) / n)]!);
  return out;
}
