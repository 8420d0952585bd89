// `type` into a select chooses the option its text names, as a person picking from the list does:
// the option whose words are the text, else the only one that matches ignoring case. A native select
// is asked for its options through the backend and set as a user's pick sets it (the page hears input
// and change); a listbox drawn by the page whose options are on the screen has the option tapped.
// Nothing is touched before the option is known: a text that names none, or two, is refused with the
// options listed. `fill` chooses the same way.
import { DeviceError, type DeviceBackend, type Point } from '../devices/backend.js';
import type { Element } from '../understanding/elements.js';
import { normaliseLabel } from '../understanding/names.js';
import type { Read } from '../understanding/service.js';

/** Roles that choose from options rather than take text. */
export const CHOOSES = new Set(['select', 'combobox', 'listbox']);

/** How many options a refusal lists. */
const LISTED = 20;

export type Choice =
  /** A native select: the option at `index` is set on the select at `at`. */
  | { kind: 'native'; at: Point; index: number; label: string; was: string | null }
  /** A listbox the page draws: its option is tapped where it shows. */
  | { kind: 'tap'; at: Point; label: string; was: string | null };

/** The choice `text` names among the options of the select `el` at `at`; refuses before anything is touched. */
export async function planChoice(device: DeviceBackend, el: Element, at: Point, text: string, before: Read): Promise<Choice> {
  const native = device.selectOptions ? await device.selectOptions(at) : null;
  if (native) {
    const labels = native.options.map((o) => o.label);
    const index = matchOption(
      labels,
      text,
      el,
      native.options.map((o) => o.disabled),
    );
    return { kind: 'native', at, index, label: labels[index]!, was: native.selected === null ? null : (labels[native.selected] ?? null) };
  }
  const shown = optionsShownIn(el, before);
  if (!shown.length)
    throw new DeviceError(
      'NOT_A_FIELD',
      `${el.role} ${JSON.stringify(el.label)} shows no options to choose from, and the platform has no native select there`,
      'tap it to open its list, then tap the option',
      { target: { role: el.role, label: el.label } },
    );
  const index = matchOption(
    shown.map((o) => o.label),
    text,
    el,
    shown.map((o) => o.states.disabled === true),
  );
  const chosen = shown[index]!;
  return { kind: 'tap', at: chosen.tap!, label: chosen.label, was: shown.find((o) => o.states.selected)?.label ?? null };
}

/** Plays a planned choice. */
export async function playChoice(device: DeviceBackend, choice: Choice, tap: (p: Point) => Promise<void>): Promise<void> {
  if (choice.kind === 'native') {
    if (!device.chooseOption) throw new DeviceError('NOT_A_FIELD', 'this platform cannot choose an option of a select', 'tap it, then tap the option');
    return device.chooseOption(choice.at, choice.index);
  }
  return tap(choice.at);
}

/**
 * The option `text` names: the one whose words are exactly the text, else the only one equal to it
 * ignoring case and spacing. A disabled option is never chosen. None, or two, is a refusal that lists
 * the options (the first LISTED).
 */
export function matchOption(labels: string[], text: string, el: Pick<Element, 'role' | 'label'>, disabled: boolean[] = []): number {
  const usable = (i: number) => disabled[i] !== true;
  const exact = labels.flatMap((l, i) => (l === text && usable(i) ? [i] : []));
  const loose = normaliseLabel(text).toLowerCase();
  const found = exact.length ? exact : labels.flatMap((l, i) => (normaliseLabel(l).toLowerCase() === loose && usable(i) ? [i] : []));
  if (found.length === 1) return found[0]!;
  const listed = labels.slice(0, LISTED).map((l, i) => (disabled[i] ? `${l} (disabled)` : l));
  const more = labels.length > LISTED ? ` and ${labels.length - LISTED} more` : '';
  const what = `${el.role} ${JSON.stringify(el.label)}`;
  const details = { options: listed, optionCount: labels.length, text };
  if (found.length > 1)
    throw new DeviceError(
      'AMBIGUOUS',
      `${found.length} options of ${what} are ${JSON.stringify(text)}; nothing was chosen`,
      `type the option's exact words; the options: ${listed.map((l) => JSON.stringify(l)).join(', ')}${more}`,
      details,
    );
  const off = labels.findIndex((l) => normaliseLabel(l).toLowerCase() === loose);
  throw new DeviceError(
    'NO_MATCH',
    off >= 0
      ? `the option ${JSON.stringify(labels[off])} of ${what} is disabled; nothing was chosen`
      : `no option of ${what} is ${JSON.stringify(text)}; nothing was chosen`,
    `the options: ${listed.map((l) => JSON.stringify(l)).join(', ')}${more}`,
    details,
  );
}

/** The options a page-drawn listbox shows on the screen: option lines inside its box. */
function optionsShownIn(el: Element, read: Read): Element[] {
  const f = el.frame;
  const inside = (e: Element) => {
    const c = e.tap;
    return c !== null && c.x >= f.x && c.x <= f.x + f.width && c.y >= f.y && c.y <= f.y + f.height;
  };
  return read.reading.elements.filter((e) => e.role === 'option' && inside(e));
}
