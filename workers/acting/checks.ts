// What `wait` and `assert` steps look for: whether a target is on the screen as it is read now,
// and a field's value. A target that matches several elements is visible; a target that names
// nothing is not. Never a fuzzy guess: waiting for "Save" must not be satisfied by "Saved".
import { DeviceError } from '../devices/backend.js';
import { normaliseLabel } from '../understanding/names.js';
import { selectAll, type Selector } from '../understanding/select.js';
import type { Read, Understanding } from '../understanding/service.js';

export interface Presence {
  visible: boolean;
  /** The first matching element that can be seen, when one can. */
  index: number | null;
  matches: number;
}

export function presence(u: Understanding, localId: string, epoch: number, read: Read, target: string | Selector, role?: string): Presence {
  const els = read.reading.elements;
  const shown = (i: number) => read.reading.refs[i] !== null;
  if (typeof target !== 'string') {
    const hits = selectAll(target, { elements: els, shown });
    return { visible: hits.length > 0, index: hits[0] ?? null, matches: hits.length };
  }
  const t = target.trim();
  if (t.startsWith('@') || /^#\d/.test(t)) {
    try {
      const f = u.locate(localId, epoch, read, t, role);
      return { visible: true, index: f.index, matches: 1 };
    } catch (err) {
      if (err instanceof DeviceError && (err.code === 'NO_MATCH' || err.code === 'STALE_REF')) return { visible: false, index: null, matches: 0 };
      throw err;
    }
  }
  const id = t.startsWith('#') ? t.slice(1) : null;
  const want = normaliseLabel(t.replace(/^"(.*)"$/, '$1')).toLowerCase();
  // Text drawn inside a control counts: waiting for "Signed up" is met by a status line saying it.
  const hits = els
    .map((_, i) => i)
    .filter((i) => shown(i) && (!role || els[i]!.role === role))
    .filter((i) =>
      id
        ? els[i]!.id === id
        : normaliseLabel(els[i]!.label).toLowerCase() === want ||
          normaliseLabel(els[i]!.detail ?? '').toLowerCase() === want ||
          normaliseLabel(els[i]!.value ?? '').toLowerCase() === want,
    );
  return { visible: hits.length > 0, index: hits[0] ?? null, matches: hits.length };
}
