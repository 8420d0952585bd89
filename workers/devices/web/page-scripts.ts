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
