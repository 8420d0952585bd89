// A form taller than the screen, filled in one step. The tree publishes what is rendered, so fields
// below the fold cannot be searched for: the unit is the viewport. Read this screenful, fill the
// fields it shows, move one viewport down, repeat; the end is two consecutive stalls of the scroll
// sensor (one can be a sticky element). Each field is checked by reading its value back: a field
// typed into but showing something else is reported, not counted as filled.
import type { components } from '../../openapi/generated/types.js';
import { type Clock, delay } from '../clock.js';
import { DeviceError, type DeviceBackend } from '../devices/backend.js';
import * as g from '../devices/gestures.js';
import type { Eyes } from '../perception/eyes.js';
import type { Element } from '../understanding/elements.js';
import { normaliseLabel } from '../understanding/names.js';
import type { Read } from '../understanding/service.js';
import { checkDeadline } from './deadline.js';
import { planChoice, playChoice } from './choose.js';
import { focusField } from './perform.js';
import { scrollBy, viewportStep } from './scroll.js';

type Schemas = components['schemas'];

const TEXT_ROLES = new Set(['textfield', 'securefield', 'searchfield', 'textarea']);
const CHOICE_ROLES = new Set(['checkbox', 'switch']);
const SELECT_ROLES = new Set(['select', 'combobox']);
const MAX_VIEWPORTS = 20;
const FOCUS_MS = 80;

export interface FillContext {
  device: DeviceBackend;
  eyes: Eyes;
  /** The screen as it is now, once it has settled. */
  settledRead: () => Promise<Read>;
}

export interface FillOutcome {
  filled: string[];
  missing: string[];
  viewports: number;
  /** Why each missing field is missing. */
  problems: string[];
  after: Read;
}

export async function fill(ctx: FillContext, fields: Schemas['FillField'][]): Promise<FillOutcome> {
  const pending = new Map(fields.map((f) => [f.target, f]));
  const filled: string[] = [];
  const problems = new Map<string, string>();
  /** Fields entering refused (an option named by nothing, a field the focus would not go to): reported, not tried again. */
  const refusedTargets = new Set<string>();
  let read = await ctx.settledRead();
  let viewports = 1;
  let stalls = 0;
  for (;;) {
    let typed = false;
    for (const [target, f] of pending) {
      const i = fieldIndex(read, target);
      if (i === null || refusedTargets.has(target)) continue;
      checkDeadline(`entering ${JSON.stringify(target)}`);
      const refused = await enter(ctx.device, read.reading.elements[i]!, f.value, ctx.eyes.clock, read);
      if (refused) {
        problems.set(target, `${target}: ${refused}`);
        refusedTargets.add(target);
      }
      typed = true;
    }
    if (typed) read = await ctx.settledRead();
    // Read back what the screen shows now: only a field holding its value counts. A field that shows
    // something else is looked at again on a fresh read (a busy host draws late), entered once more
    // from what that read shows if it still differs (a keystroke lost), and reported if it then does.
    for (let pass = 0; pass < 3; pass++) {
      let again = false;
      for (const [target, f] of [...pending]) {
        const i = fieldIndex(read, target);
        if (i === null || refusedTargets.has(target)) continue;
        const el = read.reading.elements[i]!;
        const shown = shownValue(el);
        if (matches(shown, f.value)) {
          filled.push(target);
          pending.delete(target);
          problems.delete(target);
          continue;
        }
        problems.set(target, `${target}: typed ${JSON.stringify(f.value)}, the field shows ${JSON.stringify(shown)}`);
        if (pass === 1) {
          checkDeadline(`entering ${JSON.stringify(target)} again`);
          await enter(ctx.device, el, f.value, ctx.eyes.clock, read);
        }
        again = pass < 2;
      }
      if (!again) break;
      if (pass === 0) await ctx.eyes.confirmStill();
      read = await ctx.settledRead();
    }
    if (!pending.size || viewports >= MAX_VIEWPORTS) break;
    checkDeadline(`scrolling to screenful ${viewports + 1} of the form`);
    const step = await scrollBy(ctx.device, read, 'down', viewportStep(read), ctx.settledRead);
    read = step.after;
    viewports++;
    stalls = step.atEnd || step.movedPt === null ? stalls + 1 : 0;
    if (stalls >= 2) break;
  }
  for (const t of pending.keys()) if (!problems.has(t)) problems.set(t, `${t}: no field of that name on the form`);
  return { filled, missing: [...pending.keys()], viewports, problems: [...problems.values()], after: read };
}

/** A visible field named `target` (its label, or #id), or null. */
function fieldIndex(read: Read, target: string): number | null {
  const els = read.reading.elements;
  const id = target.startsWith('#') ? target.slice(1) : null;
  const want = normaliseLabel(target).toLowerCase();
  const i = els.findIndex(
    (e, k) => read.reading.refs[k] !== null && e.tap !== null && isField(e) && (id ? e.id === id : normaliseLabel(e.label).toLowerCase() === want),
  );
  return i >= 0 ? i : null;
}

const isField = (e: Element) => TEXT_ROLES.has(e.role) || CHOICE_ROLES.has(e.role) || SELECT_ROLES.has(e.role);

/** Enters one field's value as `type` does (choose.ts for a select, the focus checked for text); why not, when it could not. */
async function enter(device: DeviceBackend, e: Element, value: string, clock: Clock, read: Read): Promise<string | undefined> {
  if (CHOICE_ROLES.has(e.role)) {
    if ((e.states.checked === true) !== truthy(value)) await device.touch(g.tap(e.tap!));
    return;
  }
  if (SELECT_ROLES.has(e.role) && device.selectOptions) {
    try {
      const choice = await planChoice(device, e, e.tap!, value, read);
      await playChoice(device, choice, (p) => device.touch(g.tap(p)));
      return;
    } catch (err) {
      if (err instanceof DeviceError && (err.code === 'NO_MATCH' || err.code === 'AMBIGUOUS')) return `${err.message} (${err.hint})`;
      if (!(err instanceof DeviceError) || err.code !== 'NOT_A_FIELD') throw err;
      // A select the page draws with its options closed: type-ahead, below.
    }
  }
  if (SELECT_ROLES.has(e.role)) {
    await device.touch(g.tap(e.tap!));
    await delay(clock, FOCUS_MS);
    // Type-ahead picks the option by its words, on a closed select and in an open picker alike.
    await device.type(value);
    await device.key('Enter');
    return;
  }
  const focus = await focusField(device, e.tap!, (ms) => delay(clock, ms));
  if (focus?.how === 'none') return `the tap left the focus on ${focus.was} and no field there would take it: nothing was typed`;
  const old = e.value ?? '';
  if (old) {
    await device.key('End');
    for (let k = 0; k < old.length; k++) await device.key('Backspace');
  }
  await device.type(value);
}

function shownValue(e: Element): string {
  if (CHOICE_ROLES.has(e.role)) return e.states.checked === true ? 'true' : 'false';
  return e.value ?? '';
}

function matches(shown: string, wanted: string): boolean {
  if (shown === 'true' || shown === 'false') return (shown === 'true') === truthy(wanted);
  return normaliseLabel(shown).toLowerCase() === normaliseLabel(wanted).toLowerCase();
}

const truthy = (v: string) => /^(true|yes|on|checked|1)$/i.test(v.trim());
