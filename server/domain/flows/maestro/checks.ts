// Commands that look rather than act: assertions, waits and screenshots.
import { misuse, scalarArg, withMap, type Handler } from './handler.js';
import { named, readSelector, selectorOf } from './selector.js';

/** Maestro keeps looking for an asserted element for several seconds before it fails. */
const ASSERT_TIMEOUT_MS = 7000;

function assertion(that: 'visible' | 'not-visible'): Handler {
  return (input) => {
    if (input.arg === null) return misuse(input, 'a text or a map of text, id and index');
    const t = input.opts ? readSelector(input.opts, false) : selectorOf(input.arg, input.ctx, false);
    return t && [{ action: 'assert', that, ...named(t), timeoutMs: ASSERT_TIMEOUT_MS }];
  };
}

const extendedWaitUntil: Handler = (input) =>
  withMap(input, 'a map with visible or notVisible, and timeout', (o) => {
    const visible = o.raw('visible');
    const notVisible = o.raw('notVisible');
    const timeoutMs = o.timeout('timeout');
    if (!visible === !notVisible) return misuse(input, 'exactly one of visible and notVisible');
    const node = (visible ?? notVisible)!;
    const t = selectorOf(node, input.ctx, false, visible ? 'visible' : 'notVisible');
    if (!t) return undefined;
    return [
      {
        action: 'wait',
        for: visible ? 'visible' : 'not-visible',
        ...named(t),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
    ];
  });

const waitForAnimationToEnd: Handler = (input) => {
  if (input.arg === null) return [{ action: 'wait', for: 'settled' }];
  if (!input.opts) return misuse(input, 'no argument, or a map with timeout');
  const timeoutMs = input.opts.timeout('timeout');
  if (input.opts.has('timeout') && timeoutMs === undefined) return undefined;
  return [{ action: 'wait', for: 'settled', ...(timeoutMs !== undefined ? { timeoutMs } : {}) }];
};

const takeScreenshot: Handler = (input) => {
  const raw = input.opts ? input.opts.str('path') : scalarArg(input, 'a name');
  if (input.opts && !input.opts.has('path')) return misuse(input, 'a name (or a map with path)');
  if (raw === undefined) return undefined;
  // a name, not a path: the image is kept by simfleet, so slashes and the like become dashes
  const name = raw.trim().replace(/[^A-Za-z0-9._-]/g, '-');
  if (!name || name.length > 100) return misuse(input, 'a name of 1 to 100 characters');
  return [{ action: 'screenshot', name }];
};

export const CHECKS: Record<string, Handler> = {
  assertVisible: assertion('visible'),
  assertNotVisible: assertion('not-visible'),
  extendedWaitUntil,
  waitForAnimationToEnd,
  takeScreenshot,
};
