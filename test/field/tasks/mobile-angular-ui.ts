// Mobile Angular UI 1.3.4's demo (AngularJS 1.5, hash routes #/forms, #/tabs, #/overlay, #/scroll).
// The route is location.hash; a sidebar is open while the body (or the app) carries
// `sidebar-left-in` / `sidebar-right-in`; a modal or overlay exists in the DOM only while shown (ui-if);
// the current tab is the `li.active` of the first `.nav-tabs`; a ui-switch is `.switch.active`.
import type { FieldTask } from '../tasks.js';

const cls = `(document.body.className + ' ' + document.documentElement.className + ' ' + (document.querySelector('.app')?.className ?? ''))`;
const sidebar = (side: 'left' | 'right') => `/sidebar-${side}-in/.test(${cls})`;
const tabOn = (n: number) =>
  `document.querySelector('ul.nav-tabs li.active')?.textContent.trim() === 'Tab ${n}' && [...document.querySelectorAll('h3.page-header')].map((h) => h.textContent.trim()).join() === 'Tab ${n}'`;
/** The scroll list's own scroller (the route's .scrollable-content that actually scrolls). */
const listTop = `Math.max(...[...document.querySelectorAll('.scrollable-content')].map((e) => e.scrollTop))`;
const shownModal = `[...document.querySelectorAll('.modal, .modal-overlay')].some((m) => m.getClientRects().length > 0)`;

export const MAUI_TASKS: FieldTask[] = [
  {
    app: 'mobile-angular-ui-demo',
    name: 'open the menu, go to Forms, fill in the login and go back',
    steps: [
      { act: { action: 'tap', target: 'MENU' }, done: sidebar('left') },
      { act: { action: 'tap', target: 'Forms' }, done: `location.hash === '#/forms' && !${sidebar('left')}` },
      { act: { action: 'clear', target: 'Email' }, done: `document.querySelector('input[type=email]').value === ''` },
      { act: { action: 'type', target: 'Email', text: 'me@example.org' }, done: `document.querySelector('input[type=email]').value === 'me@example.org'` },
      { act: { action: 'type', target: 'Password', text: 'hunter2' }, done: `document.querySelector('input[type=password]').value === 'hunter2'` },
      {
        act: { action: 'tap', target: '' },
        pick: { role: 'button', unnamed: true },
        // Remember Me starts on: the tap turns it off.
        probe: `document.querySelector('ui-switch').classList.contains('active')`,
        done: `before === true && !document.querySelector('ui-switch').classList.contains('active')`,
      },
      { act: { action: 'back' }, done: `location.hash === '#/' || location.hash === ''` },
      { act: { action: 'tap', target: 'CHAT' }, done: sidebar('right') },
    ],
  },
  {
    app: 'mobile-angular-ui-demo',
    page: 'demo/index.html#/tabs',
    name: 'switch tabs from the tab strip and the button group',
    steps: [
      { act: { action: 'tap', target: 'Tab 2', index: 0 }, done: tabOn(2) },
      { act: { action: 'tap', target: 'Tab 3', index: 1 }, done: tabOn(3) },
      { act: { action: 'tap', target: 'Tab 1', index: 0 }, done: tabOn(1) },
      // An agent's slip: the current tab again.
      {
        act: { action: 'tap', target: 'Tab 1', index: 0 },
        probe: `document.querySelector('ul.nav-tabs li.active')?.textContent.trim()`,
        done: `document.querySelector('ul.nav-tabs li.active')?.textContent.trim() !== before`,
        probeOnly: true,
      },
    ],
  },
  {
    app: 'mobile-angular-ui-demo',
    page: 'demo/index.html#/overlay',
    name: 'open and close the modal and the overlay',
    steps: [
      { act: { action: 'tap', target: 'Show Modal' }, done: shownModal },
      { act: { action: 'tap', target: 'Save changes' }, done: `!${shownModal}` },
      { act: { action: 'tap', target: 'Show Modal' }, done: shownModal },
      { act: { action: 'tap', target: 'Close' }, done: `!${shownModal}` },
      { act: { action: 'tap', target: 'Show Overlay' }, done: shownModal },
      { act: { action: 'tap', target: '' }, pick: { role: 'button' }, done: `!${shownModal}` },
    ],
  },
  {
    app: 'mobile-angular-ui-demo',
    page: 'demo/index.html#/scroll',
    name: 'scroll to a far row of the long list',
    steps: [
      {
        act: { action: 'scroll', to: 'Item 60' },
        done: `(() => { const a = [...document.querySelectorAll('.list-group-item')].find((x) => x.textContent.trim() === 'Item 60'); const r = a.getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
      { act: { action: 'scroll', direction: 'down' }, probe: listTop, done: `${listTop} > before` },
      { act: { action: 'scroll', direction: 'down' }, probe: listTop, done: `${listTop} > before` },
      { act: { action: 'scroll', direction: 'up' }, probe: listTop, done: `${listTop} < before` },
      { act: { action: 'tap', target: 'MENU' }, done: sidebar('left') },
      { act: { action: 'tap', target: 'Tabs' }, done: `location.hash === '#/tabs'` },
      { act: { action: 'back' }, done: `location.hash === '#/scroll'` },
    ],
  },
];
