// jQuery Mobile 1.4.1 demos. jQuery Mobile enhances native controls: a checkbox or flip switch keeps
// its input (read here by `checked`), a select keeps its select element; an open panel has class
// `ui-panel-open`; an open popup's container has `ui-popup-active`; tabs show one panel (display);
// a navbar's current link has `ui-btn-active`; the filterable widget hides rows with `ui-screen-hidden`.
import type { FieldStep, FieldTask } from '../tasks.js';

const panelOpen = (sel: string) => `!!document.querySelector(${JSON.stringify(`${sel}.ui-panel-open`)})`;
const panelShut = (sel: string) => `!document.querySelector(${JSON.stringify(`${sel}.ui-panel-open`)})`;
const popupOpen = (id: string) => `!!document.querySelector('#${id}-popup.ui-popup-active')`;
/** Tab widget `w` (0 first) has the tab named `name` active and shows one panel (that one, when given). */
const tabShown = (w: number, name: string, panel?: string) =>
  `(() => { const t = document.querySelectorAll('[data-role=tabs]')[${w}]; const shown = [...t.querySelectorAll(':scope > .ui-tabs-panel')].filter((p) => getComputedStyle(p).display !== 'none'); return t.querySelector('.ui-tabs-active a')?.textContent.trim() === ${JSON.stringify(name)} && shown.length === 1${panel ? ` && shown[0].matches(${JSON.stringify(panel)})` : ''}; })()`;
const inView = (el: string) =>
  `(() => { const r = (${el}).getBoundingClientRect(); return r.height > 0 && r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`;

/** The demos' own menu panel, on every demo page. */
function menuPanel(): FieldStep[] {
  return [
    { act: { action: 'scroll', to: 'Menu' }, done: inView(`document.querySelector('.jqm-navmenu-link')`) },
    { act: { action: 'tap', target: 'Menu' }, done: panelOpen('.jqm-navmenu-panel') },
    { act: { action: 'swipe', direction: 'left' }, done: panelShut('.jqm-navmenu-panel') },
  ];
}

export const JQM_TASKS: FieldTask[] = [
  {
    app: 'jqm-forms',
    page: 'dist/demos/checkboxradio-checkbox/index.html',
    name: 'tick checkboxes in the vertical and horizontal groups',
    steps: [
      { act: { action: 'tap', target: 'Check me' }, done: `document.querySelector('input[name="checkbox-0 "]').checked` },
      { act: { action: 'scroll', to: 'I agree' }, done: inView(`document.querySelector('label[for=checkbox-mini-0]')`) },
      { act: { action: 'tap', target: 'I agree', index: 0 }, done: `document.querySelector('#checkbox-mini-0').checked` },
      { act: { action: 'scroll', direction: 'down' }, probe: 'scrollY', done: 'scrollY > before' },
      { act: { action: 'tap', target: 'Two', index: 0 }, done: `document.querySelector('#checkbox-v-2b').checked` },
      {
        act: { action: 'tap', target: 'Three', index: 0 },
        done: `document.querySelector('#checkbox-v-2c').checked && document.querySelector('#checkbox-v-2b').checked`,
      },
      { act: { action: 'tap', target: 'Two', index: 0 }, done: `!document.querySelector('#checkbox-v-2b').checked` },
      ...menuPanel(),
    ],
  },
  {
    app: 'jqm-forms',
    page: 'dist/demos/flipswitch/index.html',
    name: 'flip both switches on and one off again',
    steps: [
      { act: { action: 'tap', target: 'Flip toggle switch checkbox:', index: 0 }, done: `document.querySelector('#flip-checkbox-1').checked` },
      { act: { action: 'tap', target: 'Flip toggle switch checkbox:', index: 1 }, done: `document.querySelector('#flip-checkbox-2').checked` },
      {
        act: { action: 'tap', target: 'Flip toggle switch checkbox:', index: 0 },
        done: `!document.querySelector('#flip-checkbox-1').checked && document.querySelector('#flip-checkbox-2').checked`,
      },
    ],
  },
  {
    app: 'jqm-forms',
    page: 'dist/demos/selectmenu/index.html',
    name: 'choose in the native select menus',
    steps: [
      {
        act: { action: 'type', target: 'Basic:', text: 'The 3rd Option' },
        done: `document.querySelector('#select-native-1').selectedOptions[0].textContent.trim() === 'The 3rd Option'`,
      },
      {
        act: { action: 'tap', target: 'The 1st Option', role: 'button', index: 0 },
        done: `document.querySelector('#select-native-1') === document.activeElement || document.querySelector('#select-native-1').selectedIndex !== 0`,
      },
      { act: { action: 'key', key: 'ArrowDown' }, done: `document.querySelector('#select-native-1').selectedIndex > 0` },
    ],
  },
  {
    app: 'jqm-forms',
    name: 'open the demos menu and the search panel, and search the demos',
    steps: [
      { act: { action: 'tap', target: 'Menu' }, done: panelOpen('.jqm-navmenu-panel') },
      { act: { action: 'key', key: 'Escape' }, done: panelShut('.jqm-navmenu-panel') },
      { act: { action: 'tap', target: 'Search' }, done: panelOpen('.jqm-search-panel') },
      {
        act: { action: 'type', target: 'Search demos...', text: 'popup' },
        done: `[...document.querySelectorAll('.jqm-search-panel li')].some((li) => li.getClientRects().length > 0 && /popup/i.test(li.textContent))`,
      },
      { act: { action: 'swipe', direction: 'right' }, done: panelShut('.jqm-search-panel') },
    ],
  },
  {
    app: 'jqm-listview',
    page: 'dist/demos/filterable/index.html',
    name: 'filter a list down to one row and clear the filter',
    steps: [
      { act: { action: 'scroll', to: 'Acura' }, done: inView(`document.querySelector('ul[data-input="#filterBasic-input"] li')`) },
      {
        act: { action: 'type', target: '', text: 'Fer' },
        pick: { role: 'textfield' },
        done: `(() => { const li = [...document.querySelectorAll('ul[data-input="#filterBasic-input"] li')].filter((l) => !l.classList.contains('ui-screen-hidden')); return li.length === 1 && li[0].textContent.trim() === 'Ferrari'; })()`,
      },
      {
        act: { action: 'clear', target: '' },
        pick: { role: 'textfield' },
        done: `document.querySelector('#filterBasic-input').value === '' && [...document.querySelectorAll('ul[data-input="#filterBasic-input"] li')].every((l) => !l.classList.contains('ui-screen-hidden'))`,
      },
    ],
  },
  {
    app: 'jqm-listview',
    page: 'dist/demos/listview-autodividers-linkbar/index.html',
    name: 'open the linkbar demo, jump to a letter, and go back',
    steps: [
      { act: { action: 'tap', target: 'Open demo' }, done: `location.pathname.endsWith('/autodividers-linkbar-demo.html')` },
      { act: { action: 'tap', target: 'R' }, probe: 'scrollY', done: `scrollY > before + 2000` },
      {
        // The demo's own Back button has scrolled away with its header: the agent goes back.
        act: { action: 'back' },
        done: `location.pathname.endsWith('/listview-autodividers-linkbar/index.html') || location.pathname.endsWith('/listview-autodividers-linkbar/')`,
      },
    ],
  },
  {
    app: 'jqm-listview',
    name: 'scroll through the listview demos to a far list',
    steps: [
      { act: { action: 'scroll', to: 'Ferrari' }, done: inView(`[...document.querySelectorAll('li')].find((l) => l.textContent.trim() === 'Ferrari')`) },
      { act: { action: 'scroll', direction: 'down', distance: 2000 }, probe: 'scrollY', done: 'scrollY >= before + 1500' },
      { act: { action: 'scroll', direction: 'up', distance: 2000 }, probe: 'scrollY', done: 'scrollY <= before - 1500' },
      ...menuPanel(),
    ],
  },
  {
    app: 'jqm-popup-panel',
    name: 'open the basic popup, dismiss it with back, open the actions menu',
    steps: [
      { act: { action: 'tap', target: 'Basic Popup' }, done: popupOpen('popupBasic') },
      { act: { action: 'back' }, done: `!${popupOpen('popupBasic')}` },
      { act: { action: 'scroll', to: 'Actions...' }, done: inView(`document.querySelector('a[href="#popupMenu"]')`) },
      { act: { action: 'tap', target: 'Actions...' }, done: popupOpen('popupMenu') },
      { act: { action: 'key', key: 'Escape' }, done: `!${popupOpen('popupMenu')}` },
    ],
  },
  {
    app: 'jqm-popup-panel',
    page: 'dist/demos/panel/index.html',
    name: 'open left and right panels and close them',
    steps: [
      { act: { action: 'tap', target: 'Overlay', index: 0 }, done: panelOpen('#leftpanel3') },
      { act: { action: 'tap', target: 'Close panel' }, done: panelShut('#leftpanel3') },
      { act: { action: 'tap', target: 'Reveal', index: 1 }, done: panelOpen('#rightpanel1') },
      { act: { action: 'swipe', direction: 'right' }, done: panelShut('#rightpanel1') },
      { act: { action: 'tap', target: 'Push', index: 0 }, done: panelOpen('#leftpanel2') },
      { act: { action: 'key', key: 'Escape' }, done: panelShut('#leftpanel2') },
      // An agent's slip: a heading is not a button.
      {
        act: { action: 'tap', target: 'Panel examples', role: 'heading' },
        probe: 'document.querySelectorAll(".ui-panel-open").length',
        done: 'document.querySelectorAll(".ui-panel-open").length > before',
        probeOnly: true,
      },
    ],
  },
  {
    app: 'jqm-navbar-tabs',
    page: 'dist/demos/tabs/index.html',
    name: 'switch tabs in both tab widgets',
    steps: [
      { act: { action: 'tap', target: 'two', index: 0 }, done: tabShown(0, 'two', '#two') },
      { act: { action: 'tap', target: 'three', index: 0 }, done: tabShown(0, 'three') },
      { act: { action: 'tap', target: 'one', index: 0 }, done: tabShown(0, 'one', '#one') },
      { act: { action: 'scroll', direction: 'down' }, probe: 'scrollY', done: 'scrollY > before' },
      { act: { action: 'tap', target: 'two', index: 1 }, done: tabShown(1, 'two') },
    ],
  },
  {
    app: 'jqm-navbar-tabs',
    name: 'make each navbar item active',
    steps: [
      {
        act: { action: 'scroll', to: 'Two' },
        done: inView(`[...document.querySelectorAll('[data-role=navbar] a')].find((a) => a.textContent.trim() === 'Two')`),
      },
      {
        act: { action: 'tap', target: 'Two', index: 0 },
        done: `[...document.querySelectorAll('[data-role=navbar] a.ui-btn-active')].some((a) => a.textContent.trim() === 'Two')`,
      },
      {
        act: { action: 'tap', target: 'Three', index: 0 },
        done: `[...document.querySelectorAll('[data-role=navbar] a.ui-btn-active')].some((a) => a.textContent.trim() === 'Three')`,
      },
      ...menuPanel(),
    ],
  },
];
