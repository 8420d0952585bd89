// Commands that move the content: scroll, scrollUntilVisible and swipe. Maestro's directions and
// simfleet's agree: scroll DOWN moves on towards the end of the content, and a swipe's direction is
// the way the finger travels.
import { direction, misuse, withMap, type Handler, type Input } from './handler.js';
import { type Options, toInt } from './options.js';
import { named, parsePoint, scrollTo, selectorOf } from './selector.js';

const scroll: Handler = (input) => (input.arg === null || input.opts ? [{ action: 'scroll', direction: 'down' }] : misuse(input, 'no argument'));

const scrollUntilVisible: Handler = (input) =>
  withMap(input, 'a map with element (and direction, timeout)', (o) => {
    const element = o.raw('element');
    if (!element) return misuse(input, 'a map with element (and direction, timeout)');
    const t = selectorOf(element, input.ctx, false, 'element');
    const dir = o.has('direction') ? direction(o.str('direction'), input, 'direction') : 'down';
    // Maestro reads a timeout or speed it cannot use as its default (its test 118): noted, not refused
    const timeoutMs = lenient(o, 'timeout', 0, Number.MAX_SAFE_INTEGER, input) === undefined ? undefined : o.timeout('timeout');
    // how Maestro paces and stops the hunt; simfleet reads the screen after every settled scroll
    const speed = lenient(o, 'speed', 0, 100, input);
    if (speed !== undefined && speed !== 40)
      input.ctx.note(`speed ${speed} is ignored: simfleet scrolls a viewport at a time and reads the screen after each`, 'speed', o.line('speed'));
    const percent = o.int('visibilityPercentage', 0, 100);
    if (percent !== undefined && percent !== 100)
      input.ctx.note(
        `visibilityPercentage ${percent} is read as "on the screen": simfleet stops once the element can be touched`,
        'visibilityPercentage',
        o.line('visibilityPercentage'),
      );
    if (o.bool('centerElement') === true)
      input.ctx.note(
        'centerElement is ignored: simfleet stops as soon as the element is in view, without centring it',
        'centerElement',
        o.line('centerElement'),
      );
    o.timeout('waitToSettleTimeoutMs'); // simfleet settles after every scroll by its own measure
    if (!t || !dir) return undefined;
    return [
      {
        action: 'scroll',
        ...scrollTo(t),
        direction: dir,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
    ];
  });

const swipe: Handler = (input) =>
  withMap(input, 'a map with direction, or start and end', (o) => {
    const dir = o.has('direction') ? direction(o.str('direction'), input, 'direction') : undefined;
    const timeoutMs = o.timeout('waitToSettleTimeoutMs');
    const duration = o.int('duration', 0, Number.MAX_SAFE_INTEGER);
    if (duration !== undefined && (duration < 50 || duration > 10_000))
      input.ctx.note(`duration ${duration} ms is held to simfleet's 50 to 10000 ms`, 'duration', o.line('duration'));
    const extra = {
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(duration !== undefined ? { durationMs: Math.min(10_000, Math.max(50, duration)) } : {}),
    };
    if (o.has('start') || o.has('end')) {
      const start = point(o.str('start'), 'start');
      const end = point(o.str('end'), 'end');
      const mixed = o.has('direction') || o.raw('from') !== undefined;
      if (mixed) input.ctx.report('give either start and end, or a direction (with from)');
      return start && end && !mixed ? [{ action: 'swipe', target: start, to: end, ...extra }] : undefined;
    }
    if (!o.has('direction')) return misuse(input, 'a map with direction, or start and end');
    const from = o.raw('from');
    const t = from ? selectorOf(from, input.ctx, false, 'from') : undefined;
    if (!dir || (from && !t)) return undefined;
    return [{ action: 'swipe', direction: dir, ...(t ? named(t) : {}), ...extra }];

    function point(text: string | undefined, key: 'start' | 'end'): string | undefined {
      if (text === undefined) {
        if (!o.has(key)) input.ctx.report(`a swipe with ${key === 'start' ? 'end' : 'start'} needs ${key} too`);
        return undefined;
      }
      return parsePoint(text) ?? o.refuse(key, `${key} "${text}" is neither "x,y" nor "x%,y%"`);
    }
  });

/** A whole number in range, or undefined with a note that Maestro's default applies instead. */
function lenient(o: Options, key: string, min: number, max: number, input: Input): number | undefined {
  const raw = o.has(key) ? o.str(key) : undefined;
  if (raw === undefined) return undefined;
  const n = toInt(raw);
  if (n !== undefined && n >= min && n <= max) return n;
  input.ctx.note(`${key} "${raw}" is out of range; Maestro uses its default instead, and so does simfleet`, key, o.line(key));
  return undefined;
}

export const MOTION: Record<string, Handler> = { scroll, scrollUntilVisible, swipe };
