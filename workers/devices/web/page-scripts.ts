// Code that runs inside the page, kept as text: it is the page's JavaScript, not this process's,
// and is type-checked by neither (the worker is compiled without the DOM's types on purpose).

/** Counts every input the page receives, in the capture phase on window, before the app's handlers can stop it. */
export const COUNT_INPUTS = `(() => {
  window.__simfleetInputs = 0;
  for (const type of ['pointerdown', 'touchstart', 'mousedown', 'keydown', 'wheel'])
    window.addEventListener(type, () => window.__simfleetInputs++, { capture: true, passive: true });
})();`;

export const INPUTS_RECEIVED = 'window.__simfleetInputs ?? 0';

/** The control at each point (the element there, climbed to the nearest thing that acts), or null. */
export function hitTestScript(points: { x: number; y: number }[]): string {
  return `(() => {
  const ROLE_OF = { BUTTON: 'button', A: 'link', INPUT: 'textfield', SELECT: 'select', TEXTAREA: 'textfield' };
  const CONTROL = 'button, a[href], input, select, textarea, [role], [tabindex], [onclick]';
  const ACTS = ['button', 'link', 'tab', 'textfield', 'select', 'checkbox', 'switch', 'radio', 'menuitem', 'option'];
  return ${JSON.stringify(points)}.map(({ x, y }) => {
    const el = document.elementFromPoint(x, y)?.closest(CONTROL) ?? null;
    if (!el || el === document.body || el === document.documentElement) return null;
    const r = el.getBoundingClientRect();
    const role = el.getAttribute('role') ?? ROLE_OF[el.tagName] ?? 'group';
    const label = (el.getAttribute('aria-label') ?? el.innerText ?? '').replace(/\\s+/g, ' ').trim().slice(0, 120);
    const interactive = ACTS.includes(role) || el.hasAttribute('onclick') || el.hasAttribute('tabindex');
    return { role, label, frame: { x: r.x, y: r.y, width: r.width, height: r.height }, id: el.id || el.getAttribute('data-testid'), interactive };
  });
})()`;
}

/**
 * In-page helpers for the field at a client point: `fieldAt(x, y, only)` is the first field in paint
 * order under the point (through open shadow roots; a label there answers for its control), else the
 * smallest visible field whose box holds the point (a page that makes its inputs untouchable while a
 * touch lasts, `pointer-events: none`, hides them from the hit test); `only` limits it to one tag.
 * `deepActive()` is the focused element, inside open shadow roots and same-origin frames.
 */
const FIELD_HELPERS = `
  const NOT_TEXT = ['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file', 'range', 'color', 'hidden'];
  const isField = (e, only) => !!e && e.nodeType === 1 && (only ? e.tagName === only :
    (e.tagName === 'INPUT' && !NOT_TEXT.includes(e.type)) || e.tagName === 'TEXTAREA' || e.tagName === 'SELECT' || e.isContentEditable === true);
  const editableRoot = (e) => { while (e.isContentEditable && e.parentElement && e.parentElement.isContentEditable) e = e.parentElement; return e; };
  const stackAt = (root, x, y, seen) => {
    const out = [];
    for (const e of root.elementsFromPoint(x, y)) {
      if (e.shadowRoot && !seen.has(e.shadowRoot)) { seen.add(e.shadowRoot); out.push(...stackAt(e.shadowRoot, x, y, seen)); }
      out.push(e);
    }
    return out;
  };
  const fieldAt = (x, y, only) => {
    for (const e of stackAt(document, x, y, new Set())) {
      if (isField(e, only)) return editableRoot(e);
      if (e.tagName === 'LABEL' && isField(e.control, only)) return e.control;
    }
    const holding = [...document.querySelectorAll(only ? only.toLowerCase() : 'input, textarea, select, [contenteditable]')]
      .filter((e) => isField(e, only) && !e.disabled && e.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true }))
      .map((e) => [e, e.getBoundingClientRect()])
      .filter(([, r]) => r.width >= 2 && r.height >= 2 && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom)
      .sort((a, b) => a[1].width * a[1].height - b[1].width * b[1].height);
    return holding.length ? editableRoot(holding[0][0]) : null;
  };
  const deepActive = () => {
    let a = document.activeElement;
    for (;;) {
      if (a && a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a && (a.tagName === 'IFRAME' || a.tagName === 'FRAME')) {
        let inner = null;
        try { inner = a.contentDocument && a.contentDocument.activeElement; } catch {}
        if (inner && inner !== a.contentDocument.body) { a = inner; continue; }
      }
      return a;
    }
  };
  const nameOf = (e) => !e || e === document.body || e === document.documentElement ? 'body'
    : e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.tagName === 'INPUT' ? '[type=' + e.type + ']' : '') + (e.isContentEditable ? '[contenteditable]' : '');
  const holds = (field, a) => !!a && (a === field || field.contains(a) || (field.shadowRoot && field.shadowRoot.contains(a)));
`;

/**
 * The focus after a tap meant for the field at a client point, made right where the tap left it
 * elsewhere: the field is focused directly and its caret put at the end of what it holds, as a tap
 * after the last character puts it. Answers `{ how, was, field }` (backend.ts FieldFocus).
 */
export function focusFieldScript(x: number, y: number): string {
  return `(() => {${FIELD_HELPERS}
  const field = fieldAt(${x}, ${y});
  const was = deepActive();
  if (!field) return { how: isField(was) ? 'tap' : 'none', was: nameOf(was) };
  if (holds(field, was)) return { how: 'tap', was: nameOf(was), field: nameOf(field) };
  HTMLElement.prototype.focus.call(field, { preventScroll: true });
  if (!holds(field, deepActive())) return { how: 'none', was: nameOf(was), field: nameOf(field) };
  try {
    if (field.isContentEditable) {
      const r = document.createRange(); r.selectNodeContents(field); r.collapse(false);
      const s = getSelection(); s.removeAllRanges(); s.addRange(r);
    } else if (typeof field.value === 'string' && field.setSelectionRange) field.setSelectionRange(field.value.length, field.value.length);
  } catch {}
  return { how: 'direct', was: nameOf(was), field: nameOf(field) };
})()`;
}

/** The options of the native select at a client point, or null (backend.ts SelectChoices). */
export function selectOptionsScript(x: number, y: number): string {
  return `(() => {${FIELD_HELPERS}
  const s = fieldAt(${x}, ${y}, 'SELECT');
  if (!s) return null;
  return {
    options: [...s.options].map((o) => ({ label: (o.label || o.textContent || '').replace(/\\s+/g, ' ').trim(), disabled: o.disabled || !!o.closest('optgroup[disabled]') })),
    selected: s.selectedIndex < 0 ? null : s.selectedIndex,
  };
})()`;
}

/** Chooses an option of the native select at a client point as a user's pick does: focus, the option, input and change. */
export function chooseOptionScript(x: number, y: number, index: number): string {
  return `(() => {${FIELD_HELPERS}
  const s = fieldAt(${x}, ${y}, 'SELECT');
  if (!s || !s.options[${index}]) return false;
  HTMLElement.prototype.focus.call(s, { preventScroll: true });
  if (s.multiple) s.options[${index}].selected = true;
  else s.selectedIndex = ${index};
  s.dispatchEvent(new Event('input', { bubbles: true }));
  s.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
})()`;
}
