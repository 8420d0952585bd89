// Commands that touch the app or type into it: taps, text, keys, back, launching and links.
import { misuse, scalarArg, type Handler } from './handler.js';
import { randomInt } from 'node:crypto';
import { named, readSelector, selectorOf } from './selector.js';
import type { Step } from './types.js';

function tapLike(action: 'tap' | 'double-tap' | 'long-press'): Handler {
  return (input) => {
    const { opts } = input;
    if (!opts) {
      if (input.arg === null) return misuse(input, 'a text or a map of text, id, index or point');
      const t = selectorOf(input.arg, input.ctx, false);
      return t && [{ action, ...named(t) }];
    }
    const t = readSelector(opts, true);
    const timeoutMs = opts.timeout('waitToSettleTimeoutMs');
    if (opts.bool('retryTapIfNoChange') === true)
      input.ctx.note(
        'retryTapIfNoChange: simfleet judges every tap and looks again at one that changed nothing, but never plays it twice',
        'retryTapIfNoChange',
        opts.line('retryTapIfNoChange'),
      );
    const times = action === 'tap' && opts.has('repeat') ? opts.int('repeat', 1, 20) : 1;
    const delay = opts.int('delay', 0, 10_000);
    if (!t || times === undefined) return undefined;
    const one: Step = { action, ...named(t), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    if (times === 1) return [one];
    // Maestro taps `repeat` times at one point, `delay` ms apart, then waits: two is a double tap
    if (times === 2 && (delay === undefined || delay <= 300)) return [{ ...one, action: 'double-tap' }];
    input.ctx.note(
      `repeat ${times}: simfleet taps ${times} times, settling after each, and judges only the last (the taps before it are optional)`,
      'repeat',
      opts.line('repeat'),
    );
    return [...Array.from({ length: times - 1 }, () => ({ ...one, optional: true })), one];
  };
}

const inputText: Handler = (input) => {
  if (input.opts && !input.opts.has('text')) return misuse(input, 'the text to type');
  const text = input.opts ? input.opts.str('text') : scalarArg(input, 'the text to type');
  return text === undefined ? undefined : [{ action: 'type', text }];
};

const eraseText: Handler = (input) => {
  if (input.arg === null) return [{ action: 'clear' }];
  if (input.opts) {
    const count = input.opts.int('charactersToErase', 1, 10_000);
    return input.opts.has('charactersToErase') && count === undefined ? undefined : [{ action: 'clear', ...(count !== undefined ? { count } : {}) }];
  }
  const text = scalarArg(input, 'a number of characters');
  const count = text === undefined ? undefined : Number(text);
  if (count === undefined || !Number.isInteger(count) || count < 1 || count > 10_000) {
    return text === undefined ? undefined : misuse(input, `a number of characters from 1 to 10000, not "${text}"`);
  }
  return [{ action: 'clear', count }];
};

/** Maestro key names (matched without case) → a simfleet key; back is its own step. */
const KEYS: Record<string, string> = { enter: 'Enter', backspace: 'Backspace', tab: 'Tab', escape: 'Escape' };

const pressKey: Handler = (input) => {
  const name = input.opts ? input.opts.str('key') : scalarArg(input, 'a key name');
  if (name === undefined) return input.opts && !input.opts.has('key') ? misuse(input, 'a key name') : undefined;
  const lower = name.trim().toLowerCase();
  if (lower === 'back') return [{ action: 'back' }];
  const key = KEYS[lower];
  if (!key) {
    input.ctx.report(`key "${name}" is not supported (simfleet presses Enter, Backspace, Tab, Escape and Back)`, input.opts ? 'key' : undefined);
    return undefined;
  }
  return [{ action: 'key', key }];
};

const back: Handler = (input) => (input.arg === null || input.opts ? [{ action: 'back' }] : misuse(input, 'no argument'));

const launchApp: Handler = (input) => {
  const { opts, ctx } = input;
  const appId = opts ? opts.str('appId') : input.arg === null ? undefined : scalarArg(input, 'an appId or a map');
  if (opts) {
    opts.bool('clearState'); // either way: a session starts clean, and launch opens its app afresh
    if (opts.bool('stopApp') === false)
      opts.refuse(
        'stopApp',
        "option 'stopApp: false' is not supported (simfleet launch always opens the app afresh); instead: leave launchApp out to keep the app as it is",
      );
    opts.unsupported(
      ['clearKeychain', 'permissions', 'arguments', 'launchArguments'],
      'simfleet launches the session app as configured',
      "set permissions with simfleet's permission call and arguments when the session is leased, and leave the option out",
    );
  }
  if (appId !== undefined && ctx.appId !== null && appId !== ctx.appId) {
    ctx.report(
      `launches ${appId}, but a simfleet session runs one app (${ctx.appId}); instead: run this part as its own flow in a session leased for ${appId}`,
      opts ? 'appId' : undefined,
    );
    return undefined;
  }
  return [{ action: 'launch' }];
};

const openLink: Handler = (input) => {
  const url = input.opts ? input.opts.str('link') : scalarArg(input, 'a URL');
  if (input.opts) {
    if (!input.opts.has('link')) return misuse(input, 'a URL (or a map with link)');
    if (input.opts.bool('autoVerify') === true)
      input.ctx.note(
        'autoVerify is ignored: simfleet opens the link as it is (Android app-link verification is not run)',
        'autoVerify',
        input.opts.line('autoVerify'),
      );
    if (input.opts.bool('browser') === true)
      input.ctx.note(
        'browser: simfleet opens the link in the session (a web device is a browser; a native one opens it as the app would)',
        'browser',
        input.opts.line('browser'),
      );
  }
  if (url === undefined) return undefined;
  if (!url.trim() || url.length > 4000) return misuse(input, 'a URL of 1 to 4000 characters');
  return [{ action: 'open', url: url.trim() }];
};

/** Maestro's inputRandom* commands: a new value every time the flow is read (so every run), as Maestro types a new one every run. */
function random(kind: 'text' | 'number' | 'email' | 'name'): Handler {
  return (input) => {
    let length = 8;
    if (input.opts) {
      const asked = input.opts.int('length', 0, 1000);
      if (asked === undefined && input.opts.has('length')) return undefined;
      if (asked) length = asked;
    } else if (input.arg !== null) return misuse(input, 'no argument, or a map with length');
    return [{ action: 'type', text: randomValue(kind, length) }];
  };
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman', 'Berners-Lee'];

export function randomValue(kind: 'text' | 'number' | 'email' | 'name', length = 8): string {
  const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[randomInt(chars.length)]).join('');
  if (kind === 'number') return pick('123456789', 1) + pick('0123456789', length - 1);
  if (kind === 'email') return `${pick(LOWER, 10)}@example.com`;
  if (kind === 'name') return `${FIRST[randomInt(FIRST.length)]} ${LAST[randomInt(LAST.length)]}`;
  return pick(LOWER + LOWER.toUpperCase() + '0123456789', length);
}

export const INPUT: Record<string, Handler> = {
  inputRandomText: random('text'),
  inputRandomNumber: random('number'),
  inputRandomEmail: random('email'),
  inputRandomPersonName: random('name'),
  tapOn: tapLike('tap'),
  doubleTapOn: tapLike('double-tap'),
  longPressOn: tapLike('long-press'),
  inputText,
  eraseText,
  pressKey,
  back,
  launchApp,
  openLink,
};
