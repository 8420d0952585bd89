// Maestro's `when:` (runFlow) and `while:` (repeat) → a StepCondition the runner checks on the
// device, or an answer known before the run: `true:` holds a value Maestro tests for truth once its
// `${...}` is substituted, so with plain variables it is decided here (blank, false, undefined,
// null and 0 are false; anything else is true, as in Orchestra.evaluateCondition).
import type { components } from '../../../../openapi/generated/types.js';
import { Options } from './options.js';
import { selectorOf, toSelector } from './selector.js';
import type { CommandContext, YNode } from './types.js';

export type StepCondition = components['schemas']['StepCondition'];

/** checked: the runner checks it; always/never: decided now; undefined: a problem was reported. */
export type Condition = { kind: 'checked'; condition: StepCondition } | { kind: 'always' } | { kind: 'never' };

const PLATFORMS: Record<string, StepCondition['platform']> = { android: 'android', ios: 'ios', web: 'web' };

export function readCondition(node: YNode, ctx: CommandContext, option: string): Condition | undefined {
  if (node.kind !== 'map') {
    ctx.report(`option '${option}' must be a map of visible, notVisible, platform or true`, option, node.line);
    return undefined;
  }
  const o = new Options(node, ctx);
  o.str('label'); // a name for reports; simfleet's reports name the file and line instead
  o.bool('optional');
  const platformText = o.str('platform');
  const visible = o.raw('visible');
  const notVisible = o.raw('notVisible');
  const truth = o.has('true') ? o.str('true') : undefined;
  o.finish();
  const problems = o.has('true') && truth === undefined;
  const platform = platformText === undefined ? undefined : PLATFORMS[platformText.trim().toLowerCase()];
  if (platformText !== undefined && !platform) o.refuse('platform', `platform "${platformText}" is not Android, iOS or Web`);
  const seen = visible ? selectorOf(visible, ctx, false, 'visible') : undefined;
  const unseen = notVisible ? selectorOf(notVisible, ctx, false, 'notVisible') : undefined;
  if (problems || (platformText !== undefined && !platform) || (visible && !seen) || (notVisible && !unseen)) return undefined;
  if (!o.has('visible') && !o.has('notVisible') && !o.has('platform') && !o.has('true')) {
    // an unknown key was reported by finish(); otherwise say what is missing
    if (node.entries.every((e) => e.key === 'label' || e.key === 'optional'))
      ctx.report(`option '${option}' needs visible, notVisible, platform or true`, option, node.line);
    return undefined;
  }
  if (truth !== undefined && !truthy(truth)) return { kind: 'never' };
  const condition: StepCondition = {
    ...(platform ? { platform } : {}),
    ...(seen ? { visible: toSelector(seen) } : {}),
    ...(unseen ? { notVisible: toSelector(unseen) } : {}),
  };
  return Object.keys(condition).length ? { kind: 'checked', condition } : { kind: 'always' };
}

/** Orchestra.evaluateCondition's test of a script condition's value. */
export function truthy(value: string): boolean {
  const v = value.trim();
  return !(v === '' || v.toLowerCase() === 'false' || v === 'undefined' || v === 'null' || Number(v) === 0);
}
