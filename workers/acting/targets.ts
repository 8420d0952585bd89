// A step's target, found on the screen as it is: the element (by ref, row, id or label, with `index`
// choosing among same-named ones) or a point (x,y in points, x%,y% of the screen). Fallbacks (`or`)
// are tried in order only when a target matches nothing: a target that matches two things is
// AMBIGUOUS at once, never passed over for the next.
import type { components } from '../../openapi/generated/types.js';
import { DeviceError, type Point } from '../devices/backend.js';
import { inside } from '../understanding/geometry.js';
import type { Read, Understanding } from '../understanding/service.js';
import type { Found } from '../understanding/refs.js';
import { describeSelector } from '../understanding/select.js';

type Fields = components['schemas']['ActionFields'];

export interface Resolved {
  /** Where a touch goes: the element's tap point, or the point given. */
  point: Point;
  /** The element (index into the reading), or null for a point with nothing under it. */
  index: number | null;
  how: Found['how'];
  /** The target string that matched (the first, or a fallback). */
  matched: string;
}

const PERCENT = /^(\d+(?:\.\d+)?)%\s*,\s*(\d+(?:\.\d+)?)%$/;
const POINT = /^(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)$/;

/** A target given as points or percentages, in points; undefined for anything else. */
export function pointOf(target: string, read: Read): Point | undefined {
  const s = target.trim();
  let m = s.match(PERCENT);
  if (m) {
    const { widthPt, heightPt } = read.reading.screen;
    const x = Number(m[1]);
    const y = Number(m[2]);
    if (x > 100 || y > 100) throw new DeviceError('VALIDATION_FAILED', `target ${s} lies outside the screen`, 'percentages run from 0% to 100%');
    return { x: (x / 100) * widthPt, y: (y / 100) * heightPt };
  }
  m = s.match(POINT);
  if (!m) return undefined;
  const p = { x: Number(m[1]), y: Number(m[2]) };
  const { widthPt, heightPt } = read.reading.screen;
  if (p.x < 0 || p.y < 0 || p.x > widthPt || p.y > heightPt)
    throw new DeviceError('VALIDATION_FAILED', `target ${s} lies outside the ${widthPt}×${heightPt} pt screen`, 'give a point on the screen');
  return p;
}

export function resolveTarget(
  u: Understanding,
  localId: string,
  epoch: number,
  read: Read,
  spec: Pick<Fields, 'target' | 'role' | 'index' | 'or' | 'select'>,
): Resolved {
  if (spec.select && spec.target === undefined) return selected(u, localId, epoch, read, spec.select);
  const targets = [spec.target!, ...(spec.or ?? [])];
  const missed: DeviceError[] = [];
  for (const target of targets) {
    const p = pointOf(target, read);
    if (p) return { point: p, index: elementAt(read, p), how: 'point', matched: target };
    try {
      const found = u.locate(localId, epoch, read, target, spec.role, spec.index);
      const el = read.reading.elements[found.index]!;
      if (!el.tap) throw new DeviceError('NO_MATCH', `${el.role} ${JSON.stringify(el.label)} has no point that can be touched`, 'scroll it into view first');
      return { point: el.tap, index: found.index, how: found.how, matched: target };
    } catch (err) {
      if (!(err instanceof DeviceError) || err.code !== 'NO_MATCH' || targets.length === 1) throw err;
      missed.push(err);
    }
  }
  throw new DeviceError(
    'NO_MATCH',
    `none of ${targets.map((t) => JSON.stringify(t)).join(', ')} is on the screen: ${missed.map((e) => e.message).join('; ')}`,
    'read the screen for the labels it has',
    { tried: targets },
  );
}

/** A Maestro selector (a step's `select`): the element it takes, or NO_MATCH. */
function selected(u: Understanding, localId: string, epoch: number, read: Read, select: NonNullable<Fields['select']>): Resolved {
  const found = u.locate(localId, epoch, read, select);
  const el = read.reading.elements[found.index]!;
  if (!el.tap) throw new DeviceError('NO_MATCH', `${el.role} ${JSON.stringify(el.label)} has no point that can be touched`, 'scroll it into view first');
  return { point: el.tap, index: found.index, how: found.how, matched: describeSelector(select) };
}

/** The smallest element drawn at a point (a switch inside its row), or null. */
function elementAt(read: Read, p: Point): number | null {
  const els = read.reading.elements;
  const box = { x: p.x, y: p.y, width: 0, height: 0 };
  const under = els.map((_, i) => i).filter((i) => els[i]!.visible && inside(box, els[i]!.visible!, 0));
  if (!under.length) return null;
  under.sort((a, b) => area(els[a]!.visible!) - area(els[b]!.visible!));
  return under[0]!;
}

const area = (r: { width: number; height: number }) => r.width * r.height;
