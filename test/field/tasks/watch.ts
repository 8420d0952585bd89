// Short-lived feedback (a toast, a top tip) may be gone by the time the screen has settled and the
// check runs. `watchShown(sel)` is a probe that starts recording, on the page, whether an element
// matching `sel` is rendered at any moment from before the action on; `sawShown` is the check.
export const watchShown = (sel: string) =>
  `(() => { window.__fieldSaw = false; const look = () => { if ([...document.querySelectorAll(${JSON.stringify(sel)})].some((e) => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden')) window.__fieldSaw = true; }; window.__fieldWatch?.disconnect(); window.__fieldWatch = new MutationObserver(look); window.__fieldWatch.observe(document.documentElement, { subtree: true, childList: true, attributes: true }); return 0; })()`;
export const sawShown = 'window.__fieldSaw === true';
