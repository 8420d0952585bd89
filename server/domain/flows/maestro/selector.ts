// Maestro element selectors → a simfleet target (a label, `#id` or a point) and an index.
// Maestro matches `text` and `id` as regular expressions; simfleet matches literally, so only
// selectors whose meaning survives that are translated, and the rest are problems.
import { Options, scalarText } from './options.js';
import type { CommandContext, YNode } from './types.js';

export interface Target {
  target: string;
  index?: number;
}

const RELATIVE = ['below', 'above', 'leftOf', 'rightOf', 'containsChild', 'childOf', 'containsDescendants'];
const STATE = ['enabled', 'checked', 'focused', 'selected'];
const SIZE = ['width', 'height', 'tolerance'];
const OTHER = ['traits', 'css'];

/** The selector options of a map (a tapOn's own map, or a nested `element:`/`from:`). */
export function readSelector(opts: Options, allowPoint: boolean): Target | undefined {
  opts.unsupported(RELATIVE, 'relative selectors');
  opts.unsupported(STATE, 'state filters');
  opts.unsupported(SIZE, 'size filters');
  opts.unsupported(OTHER, 'simfleet selects by text, id or point');
  const text = opts.str('text');
  const id = opts.str('id');
  const point = allowPoint ? opts.str('point') : undefined;
  const index = opts.int('index', 0, 100);
  const given = [text, id, point].filter((v) => v !== undefined).length;
  if (given > 1) {
    opts.ctx.report('give one of text, id and point: simfleet matches a single target');
    return undefined;
  }
  if (point !== undefined) {
    if (opts.has('index')) opts.refuse('index', "option 'index' has no meaning with a point");
    const p = parsePoint(point);
    if (!p) return opts.refuse('point', `point "${point}" is neither "x,y" nor "x%,y%"`);
    return { target: p };
  }
  let target: string | undefined;
  if (text !== undefined) target = literal(text, opts.ctx, 'text', opts.line('text'));
  else if (id !== undefined) target = withHash(literal(id, opts.ctx, 'id', opts.line('id'), false));
  else if (!opts.has('text') && !opts.has('id') && !opts.has('point')) opts.ctx.report(`a selector needs text${allowPoint ? ', id or point' : ' or id'}`);
  if (target === undefined) return undefined;
  return index === undefined ? { target } : { target, index };
}

/** A selector given as a scalar (`tapOn: "OK"`) or a map (`element: {id: ...}`). */
export function selectorOf(node: YNode, ctx: CommandContext, allowPoint: boolean, option?: string): Target | undefined {
  if (node.kind === 'map') {
    const opts = new Options(node, ctx);
    const t = readSelector(opts, allowPoint);
    opts.finish();
    return t;
  }
  const text = scalarText(node, ctx, option);
  if (text === undefined) return undefined;
  const target = literal(text, ctx, option ?? 'text', node.line);
  return target === undefined ? undefined : { target };
}

/**
 * A regular expression used as literal text. Escaped punctuation (`\.`, `\(`) stands for itself;
 * a bare `.`, `(` or `)` is ordinary punctuation ("Inbox (3)" matches itself in Maestro too). Any
 * other metacharacter or a class such as `\d` means the author wanted a pattern: a problem.
 * isLabel: the result stands alone as a target, so it must not look like one of simfleet's other forms.
 */
export function literal(text: string, ctx: CommandContext, option: string, line: number, isLabel = true): string | undefined {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return regex(text, ctx, option, line);
      out += next;
      i++;
    } else if ('*+?|[]{}^$'.includes(c)) {
      return regex(text, ctx, option, line);
    } else {
      out += c;
    }
  }
  if (!out.trim()) {
    ctx.report(`an empty ${option} selects nothing`, option, line);
    return undefined;
  }
  // simfleet reads such a target as an element reference, an id or a point, not as a label
  if (isLabel && (/^[@#]/.test(out) || parsePoint(out))) {
    ctx.report(
      `text "${out}" would be read by simfleet as ${out.startsWith('@') || out.startsWith('#') ? 'a reference or an id' : 'a point'}, not a label`,
      option,
      line,
    );
    return undefined;
  }
  return out;
}

function regex(text: string, ctx: CommandContext, option: string, line: number): undefined {
  ctx.report(
    `regular-expression text selectors are not supported: "${text}" (simfleet matches text literally; escape a character meant literally, as in Sure\\?)`,
    option,
    line,
  );
  return undefined;
}

function withHash(id: string | undefined): string | undefined {
  return id === undefined ? undefined : `#${id}`;
}

/** "50%, 50%" → "50%,50%"; "100,200" stays; both halves must be of one kind. */
export function parsePoint(text: string): string | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)(%?)\s*,\s*(\d+(?:\.\d+)?)(%?)\s*$/.exec(text);
  if (!m || m[2] !== m[4]) return undefined;
  if (m[2] === '%' && (Number(m[1]) > 100 || Number(m[3]) > 100)) return undefined;
  return `${m[1]}${m[2]},${m[3]}${m[4]}`;
}
