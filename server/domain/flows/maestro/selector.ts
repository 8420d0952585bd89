// Maestro element selectors → what a simfleet step names: a plain `target` (a label, `#id` or a
// point, with `index`) when the selector means no more than that, else a `select` the worker
// matches as Maestro does (regular expressions over the whole text, relative and state filters;
// see the Selector schema in openapi/simfleet.yaml).
import type { components } from '../../../../openapi/generated/types.js';
import { Options, scalarText } from './options.js';
import type { CommandContext, YNode } from './types.js';

export type Selector = components['schemas']['Selector'];

/** A target string (with its index), or a Maestro selector. */
export type Target = { target: string; index?: number; select?: undefined } | { select: Selector; target?: undefined; index?: undefined };

const RELATIVE = ['below', 'above', 'leftOf', 'rightOf', 'childOf', 'containsChild'] as const;
const STATE = ['enabled', 'checked', 'focused', 'selected'] as const;
const SIZE = ['width', 'height', 'tolerance'];
const OTHER = ['traits', 'css'];
const MAX_INDEX = 100;
const MAX_DEPTH = 4;

function depth(sel: Selector): number {
  return 1 + Math.max(0, ...RELATIVE.map((k) => (sel[k] ? depth(sel[k]!) : 0)));
}

/** `~"Sign.*" below ~"Email" enabled [1]` for check output (the worker's messages say the same in words). */
export function selectorText(sel: Selector): string {
  const parts: string[] = [];
  if (sel.text !== undefined) parts.push(`~${JSON.stringify(sel.text)}`);
  if (sel.id !== undefined) parts.push(`#~${JSON.stringify(sel.id)}`);
  for (const key of RELATIVE) if (sel[key]) parts.push(`${key} ${selectorText(sel[key]!)}`);
  for (const key of STATE) if (sel[key] !== undefined) parts.push(sel[key] ? key : `not ${key}`);
  if (sel.index !== undefined) parts.push(`[${sel.index}]`);
  return parts.length > 1 ? `(${parts.join(' ')})` : (parts[0] ?? '()');
}

/** The step fields that name the element: `target` (and `index`), or `select`. */
export function named(t: Target): { target: string; index?: number } | { select: Selector } {
  if (t.select) return { select: t.select };
  return t.index === undefined ? { target: t.target } : { target: t.target, index: t.index };
}

/** The same for a scroll, whose element to bring into view is `to`. */
export function scrollTo(t: Target): { to: string; index?: number } | { select: Selector } {
  if (t.select) return { select: t.select };
  return t.index === undefined ? { to: t.target } : { to: t.target, index: t.index };
}

/** The selector options of a map (a tapOn's own map, or a nested `element:`/`from:`/`below:`). */
export function readSelector(opts: Options, allowPoint: boolean): Target | undefined {
  opts.unsupported(['containsDescendants'], 'simfleet reads a flat tree', 'containsChild with one of the descendants');
  const instead = 'select by text or id, with below, above, leftOf, rightOf, childOf or a state';
  opts.unsupported(SIZE, 'size filters: simfleet selects by text, id, place and state', instead);
  opts.unsupported(OTHER, 'simfleet selects by text, id, place and state', instead);
  const text = opts.str('text');
  const id = opts.str('id');
  const point = allowPoint ? opts.str('point') : undefined;
  const index = opts.int('index', 0, MAX_INDEX);
  // accepted by Maestro on any selector map; `optional` and `label` of a command were read with it
  opts.bool('optional');
  opts.str('label');
  if (opts.bool('waitUntilVisible') === false)
    opts.ctx.note('waitUntilVisible: false: simfleet looks for the element on the settled screen as it is', 'waitUntilVisible', opts.line('waitUntilVisible'));
  const refined = readRefinements(opts);
  if (refined === undefined) return undefined;
  if (point !== undefined) {
    if (text !== undefined || id !== undefined || Object.keys(refined).length) {
      opts.ctx.report('a point is a place on the screen: give it alone, without text, id or relative selectors');
      return undefined;
    }
    if (opts.has('index')) opts.refuse('index', "option 'index' has no meaning with a point");
    const p = parsePoint(point);
    if (!p) return opts.refuse('point', `point "${point}" is neither "x,y" nor "x%,y%"`);
    return { target: p };
  }
  if (text === undefined && id === undefined && !Object.keys(refined).length) {
    const refused = [...SIZE, ...OTHER, 'containsDescendants'].some((k) => opts.has(k));
    if (!opts.has('text') && !opts.has('id') && !opts.has('point') && !refused)
      opts.ctx.report(`a selector needs text${allowPoint ? ', id or point' : ' or id'}, or a relative or state selector`);
    return undefined;
  }
  const textOk = text === undefined || pattern(text, opts.ctx, 'text', opts.line('text'));
  const idOk = id === undefined || pattern(id, opts.ctx, 'id', opts.line('id'));
  if (!textOk || !idOk) return undefined;
  // the simple forms simfleet already matches the same way: one literal text, or one literal id
  const plain = !Object.keys(refined).length && (text === undefined) !== (id === undefined);
  if (plain && text !== undefined && isLiteral(text)) {
    const target = literal(text);
    if (target !== undefined) return index === undefined ? { target } : { target, index };
  }
  if (plain && id !== undefined && isLiteral(id) && !/\s/.test(id)) {
    const target = literal(id, false);
    if (target !== undefined) return index === undefined ? { target: `#${target}` } : { target: `#${target}`, index };
  }
  const select: Selector = {
    ...(text !== undefined ? { text } : {}),
    ...(id !== undefined ? { id } : {}),
    ...(index !== undefined ? { index } : {}),
    ...refined,
  };
  // the Selector schema spells out four levels; the level that first goes past them says so
  if (depth(select) === MAX_DEPTH + 1) {
    opts.ctx.report(`relative selectors nest at most ${MAX_DEPTH} deep in simfleet; name an element nearer the one you want`);
    return undefined;
  }
  return depth(select) > MAX_DEPTH ? undefined : { select };
}

/** Relative and state selectors: each nested selector read in turn; undefined after a problem. */
function readRefinements(opts: Options): Partial<Selector> | undefined {
  const out: Partial<Selector> = {};
  let ok = true;
  for (const key of RELATIVE) {
    const node = opts.raw(key);
    if (!node) continue;
    const inner = selectorOf(node, opts.ctx, false, key);
    if (!inner) ok = false;
    else out[key] = inner.select ?? asSelector(inner);
  }
  for (const key of STATE) {
    if (!opts.has(key)) continue;
    const b = opts.bool(key);
    if (b === undefined) ok = false;
    else out[key] = b;
  }
  return ok ? out : undefined;
}

/** Any target as a selector (a condition's visible/notVisible is always one). */
export function toSelector(t: Target): Selector {
  return t.select ?? asSelector(t);
}

/** A plain target (a label or #id) said again as a selector, for use inside another. */
function asSelector(t: { target: string; index?: number }): Selector {
  const id = t.target.startsWith('#') ? t.target.slice(1) : undefined;
  const escaped = (id ?? t.target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { ...(id !== undefined ? { id: escaped } : { text: escaped }), ...(t.index !== undefined ? { index: t.index } : {}) };
}

/** A selector given as a scalar (`tapOn: "OK"`, `below: "Email"`) or a map (`element: {id: ...}`). */
export function selectorOf(node: YNode, ctx: CommandContext, allowPoint: boolean, option?: string): Target | undefined {
  if (node.kind === 'map') {
    const opts = new Options(node, ctx);
    const t = readSelector(opts, allowPoint);
    opts.finish();
    return t;
  }
  const text = scalarText(node, ctx, option);
  if (text === undefined) return undefined;
  if (!pattern(text, ctx, option ?? 'text', node.line)) return undefined;
  const target = isLiteral(text) ? literal(text) : undefined;
  return target !== undefined ? { target } : { select: { text } };
}

/**
 * Checks a text or id pattern as Maestro will use it. Maestro compiles it as a Java regular
 * expression and, when that fails, matches it as plain text. simfleet compiles it as JavaScript
 * (whose syntax agrees for what flows use): Java-only syntax is refused, since it would be matched
 * differently; a pattern that fails to compile although it was plainly meant as one (`.*`, `\d`,
 * `|`, a class) is refused too, since Maestro would then look for those characters themselves.
 */
function pattern(text: string, ctx: CommandContext, option: string, line: number): boolean {
  if (!text.trim()) {
    ctx.report(`an empty ${option} selects nothing`, option, line);
    return false;
  }
  const java = JAVA_ONLY.find(([re]) => re.test(text));
  if (java) {
    ctx.report(`${option} "${text}" uses Java regular-expression syntax (${java[1]}) that simfleet cannot match the same way; write it without`, option, line);
    return false;
  }
  try {
    new RegExp(text.replace(/\(\?[ims]+\)/g, ''), 'ims');
    return true;
  } catch (err) {
    if (!MEANT_AS_REGEX.test(text)) return true; // Maestro's fallback: the text itself
    const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '');
    ctx.report(
      `${option} "${text}" is not a regular expression that compiles (${why}); Maestro would look for these characters literally. Fix the pattern, or escape the characters meant as themselves (\\( \\[ \\. \\*)`,
      option,
      line,
    );
    return false;
  }
}

const JAVA_ONLY: [RegExp, string][] = [
  [/\(\?>/, 'an atomic group'],
  [/\\[QEAZzGhH]/, 'a \\Q, \\E, \\A, \\Z, \\z, \\G or \\h escape'],
  [/\\[pP]\{/, 'a \\p{...} class'],
  [/\[\[:/, 'a POSIX class'],
];
const MEANT_AS_REGEX = /\.[*+]|\\[dDwWsSbB]|\||\[[^\]]*\]|\[\^|\[[^\]]*\w-\w|\(\?/;

/**
 * No character that a regular expression reads otherwise: the text means only itself, so simfleet's
 * label (or id) matches what Maestro's pattern would. `Loading...` and `Inbox (3)` are patterns too
 * (Maestro matches "Loading!!!" and "Inbox 3" with them, and the text itself by its fallback).
 */
function isLiteral(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return false;
      i++;
    } else if ('.()*+?|[]{}^$'.includes(c)) return false;
  }
  return true;
}

/**
 * A pattern without regular-expression syntax (isLiteral), as the text it stands for: escaped
 * punctuation (`\.`) stands for itself. Undefined when the text would read as one of simfleet's
 * other target forms (`@3`, `#id`, `10,20`): the caller then sends a selector.
 * isLabel: the result stands alone as a target.
 */
function literal(text: string, isLabel = true): string | undefined {
  const out = text.replace(/\\(.)/g, '$1');
  if (!out.trim()) return undefined;
  if (isLabel && (/^[@#]/.test(out.trim()) || parsePoint(out))) return undefined;
  return out;
}

/** "50%, 50%" → "50%,50%"; "100,200" stays; both halves must be of one kind. */
export function parsePoint(text: string): string | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)(%?)\s*,\s*(\d+(?:\.\d+)?)(%?)\s*$/.exec(text);
  if (!m || m[2] !== m[4]) return undefined;
  if (m[2] === '%' && (Number(m[1]) > 100 || Number(m[3]) > 100)) return undefined;
  return `${m[1]}${m[2]},${m[3]}${m[4]}`;
}
