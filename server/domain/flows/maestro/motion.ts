// Commands that move the content: scroll, scrollUntilVisible and swipe. Maestro's directions and
// simfleet's agree: scroll DOWN moves on towards the end of the content, and a swipe's direction is
// the way the finger travels.
import { direction, misuse, withMap, type Handler } from './handler.js';
import { named, parsePoint, scrollTo, selectorOf } from './selector.js';

const scroll: Handler = (input) => (input.arg === null || input.opts ? [{ action: 'scroll', direction: 'down' }] : misuse(input, 'no argument'));

const scrollUntilVisible: Handler = (input) =>
  withMap(input, 'a map with element (and direction, timeout)', (o) => {
    const element = o.raw('element');
    if (!element) return misuse(input, 'a map with element (and direction, timeout)');
    const t = selectorOf(element, input.ctx, false, 'element');
    const dir = o.has('direction') ? direction(o.str('direction'), input, 'direction') : 'down';
    const timeoutMs = o.timeout('timeout');
    o.onlyDefault('speed', '40', 'simfleet scrolls at its own pace');
    o.onlyDefault('visibilityPercentage', '100', 'simfleet stops once the element is wholly in view');
    if (o.bool('centerElement') === true)
      o.refuse('centerElement', "option 'centerElement' is not supported (simfleet stops as soon as the element is in view)");
    o.unsupported(['waitToSettleTimeoutMs'], 'simfleet settles after every scroll on its own');
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
    const extra = timeoutMs !== undefined ? { timeoutMs } : {};
    if (o.has('duration')) o.refuse('duration', "option 'duration' is not supported (simfleet swipes at one speed)");
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

export const MOTION: Record<string, Handler> = { scroll, scrollUntilVisible, swipe };
