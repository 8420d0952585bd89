// Plays one action's input on the device: the gesture or call each kind means, from points already
// resolved. Knows nothing of screens, verdicts or memory; scrolling is in scroll.ts because it
// measures as it goes.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type DeviceBackend, type FieldFocus, type Point } from '../devices/backend.js';
import * as g from '../devices/gestures.js';
import type { Element } from '../understanding/elements.js';
import { type Choice, playChoice } from './choose.js';
import { contentBand, type Direction } from './scroll.js';
import type { Read } from '../understanding/service.js';

type Fields = components['schemas']['ActionFields'];
export type ActionKind = components['schemas']['ActionKind'];

/** What clearing a field with no known value and no count erases (Maestro's default too). */
const CLEAR_DEFAULT = 50;
/** A tap into a field needs a moment before keys go to it (focus moves on the tap's click). */
const FOCUS_MS = 80;

export interface Resolved {
  /** The target's point, when the action has a target. */
  point: Point | null;
  /** The element under it, when there is one. */
  element: Element | null;
  /** The `to` end (drag, swipe) in points. */
  to: Point | null;
  /** `type` into a select: the option to choose (choose.ts), planned before anything is touched. */
  choice?: Choice;
}

/** What playing the input found out on the way: where the keys went (type, clear), what was chosen. */
export interface Played {
  /** Where the tap into the field left the keyboard's focus, and what was done about it (backends that can tell). */
  focus?: FieldFocus;
  /** The option chosen, for `type` into a select. */
  choice?: Choice;
}

export async function perform(device: DeviceBackend, kind: Exclude<ActionKind, 'scroll'>, req: Fields, at: Resolved, before: Read): Promise<Played> {
  switch (kind) {
    case 'type': {
      if (at.choice) {
        await playChoice(device, at.choice, (p) => device.touch(g.tap(p)));
        return { choice: at.choice };
      }
      const focus = at.point ? await focusField(device, at.point) : undefined;
      // The keys would go to whatever holds the focus (the page's body): nothing is typed.
      if (focus?.how !== 'none') await device.type(req.text!);
      return focus ? { focus } : {};
    }
    case 'clear': {
      const focus = at.point ? await focusField(device, at.point) : undefined;
      if (focus?.how === 'none') return { focus };
      const n = req.count ?? (at.element?.value != null ? at.element.value.length : CLEAR_DEFAULT);
      await device.key('End');
      for (let i = 0; i < n; i++) await device.key('Backspace');
      return focus ? { focus } : {};
    }
    default:
      await play(device, kind, req, at, before);
      return {};
  }
}

async function play(device: DeviceBackend, kind: Exclude<ActionKind, 'scroll'>, req: Fields, at: Resolved, before: Read): Promise<void> {
  const screen = before.reading.screen;
  const centre = { x: screen.widthPt / 2, y: screen.heightPt / 2 };
  switch (kind) {
    case 'tap':
      return device.touch(g.tap(need(at.point)));
    case 'double-tap':
      return device.touch(g.doubleTap(need(at.point)));
    case 'long-press':
      return device.touch(g.longPress(need(at.point)));
    case 'type':
    case 'clear':
      return; // perform() plays them
    case 'swipe': {
      const band = contentBand(before);
      const from = at.point ?? { x: centre.x, y: (band.top + band.bottom) / 2 };
      const to =
        at.to ??
        along(
          from,
          req.direction!,
          req.distance ?? (req.direction === 'up' || req.direction === 'down' ? (band.bottom - band.top) * 0.6 : screen.widthPt * 0.6),
          screen,
        );
      return device.touch(g.swipe(from, to, req.durationMs));
    }
    case 'drag':
      return device.touch(g.drag(need(at.point), need(at.to)));
    case 'pinch':
      return device.touch(g.pinch(at.point ?? centre, req.scale!, { screenMin: Math.min(screen.widthPt, screen.heightPt) }));
    case 'rotate':
      return device.touch(g.rotate(at.point ?? centre, req.degrees!, { screenMin: Math.min(screen.widthPt, screen.heightPt) }));
    case 'key':
      return device.key(req.key!);
    case 'back':
      return device.back();
    case 'open':
      return device.open(req.url!);
    case 'launch':
      return device.launch();
  }
}

/**
 * A tap into the field, then (where the platform can tell) the focus checked: a page that cancels
 * the tap leaves it on its body, and the field is then focused directly (backend.ts focusField).
 */
export async function focusField(
  device: DeviceBackend,
  p: Point,
  wait: (ms: number) => Promise<unknown> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<FieldFocus | undefined> {
  await device.touch(g.tap(p));
  await wait(FOCUS_MS);
  // A page that went away under the tap (it navigated) answers nothing: the keys go where they go, as before.
  return device.focusField ? device.focusField(p).catch(() => undefined) : undefined;
}

/** A point `distance` from `from` the way the finger moves, kept on the screen. */
function along(from: Point, d: Direction, distance: number, screen: { widthPt: number; heightPt: number }): Point {
  const clamp = (v: number, max: number) => Math.max(2, Math.min(max - 2, v));
  const dx = d === 'left' ? -distance : d === 'right' ? distance : 0;
  const dy = d === 'up' ? -distance : d === 'down' ? distance : 0;
  return { x: clamp(from.x + dx, screen.widthPt), y: clamp(from.y + dy, screen.heightPt) };
}

function need(p: Point | null): Point {
  if (!p) throw new DeviceError('VALIDATION_FAILED', 'this action needs a target', 'give target (and to, for drag)');
  return p;
}
