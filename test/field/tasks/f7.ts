// Framework7 1.7.1 tasks (dist kitchen app, tab bar, split view, Template7 pages, inline pages). F7 1
// keeps every page of a view in the DOM while it animates: the page a user sees is the one of the
// main view that is neither cached nor parked left or right (`page-on-left`, `page-on-right`); an
// open panel puts `with-panel-<side>-<effect>` on the body; the active tab of a tab bar is the
// `.tab.active` view; the form's controls are plain inputs whose values are read directly.
import type { FieldStep, FieldTask } from '../tasks.js';

/** The data-page of the page shown in the main view. */
const shown = `[...document.querySelectorAll('.view-main .pages > .page')].filter((p) => !/\\b(cached|page-on-left|page-on-right)\\b/.test(p.className)).map((p) => p.dataset.page).join(',')`;
const on = (page: string) => `(${shown}) === ${JSON.stringify(page)}`;
/** The split view's main view names its home page index-1. */
const onSplit = (page: string) => on(page === 'index' ? 'index-1' : page);
const panelOpen = (side: 'left' | 'right') => `/\\bwith-panel-${side}-/.test(document.body.className)`;
const noPanel = `!/\\bwith-panel-/.test(document.body.className)`;
/** A form control of the shown page, by selector. */
const ctl = (sel: string) => `[...document.querySelectorAll('.view-main .page[data-page="form"] ${sel}')].pop()`;
const checked = (name: string, value: string) => `${ctl(`input[name="${name}"][value="${value}"]`)}.checked`;

function formSteps(): FieldStep[] {
  return [
    { act: { action: 'type', target: 'Your name', text: 'Ada Lovelace' }, done: `${ctl('input[placeholder="Your name"]')}.value === 'Ada Lovelace'` },
    { act: { action: 'type', target: 'E-mail', role: 'textfield', text: 'ada@example.com' }, done: `${ctl('input[type=email]')}.value === 'ada@example.com'` },
    { act: { action: 'type', target: 'Phone', role: 'textfield', text: '5550100' }, done: `${ctl('input[type=tel]')}.value === '5550100'` },
    { act: { action: 'type', target: '', text: 'Female' }, pick: { role: 'select', near: 'Gender' }, done: `${ctl('select')}.value === 'Female'` },
    // The switch itself is not in the outline (its input is hidden, its track is a div); the row's title is what an agent can tap.
    { act: { action: 'tap', target: 'Switch' }, done: `${ctl('.label-switch input')}.checked === true` },
    { act: { action: 'tap', target: 'Movies', index: 0 }, done: `${checked('ks-checkbox', 'Movies')} && ${checked('ks-checkbox', 'Books')}` },
    {
      act: { action: 'scroll', direction: 'down' },
      probe: `document.querySelector('.view-main .page[data-page="form"] .page-content').scrollTop`,
      done: `document.querySelector('.view-main .page[data-page="form"] .page-content').scrollTop > before`,
    },
    { act: { action: 'tap', target: 'Drinks', index: 1 }, done: `${checked('ks-radio', 'Drinks')} && !${checked('ks-radio', 'Books')}` },
  ];
}

export const F7_TASKS: FieldTask[] = [
  {
    app: 'f7-app',
    name: 'open the form page, fill it in, and go back',
    steps: [
      { act: { action: 'tap', target: 'Form' }, done: on('form') },
      ...formSteps(),
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
    ],
  },
  {
    app: 'f7-app',
    name: 'visit About and Services, open and close the side panels',
    steps: [
      { act: { action: 'tap', target: 'About' }, done: on('about') },
      // An agent's slip: the page's text is not a link. (The browser's back is no slip to script here:
      // F7 1 pushes no history, so back leaves the app for whatever page the session showed before.)
      { act: { action: 'tap', target: 'Here is About page!' }, done: on('index'), probeOnly: true },
      // The About page has the navbar's "Back" and a "back" link in its text: the first is the navbar's.
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
      { act: { action: 'tap', target: 'Services' }, done: on('services') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
      { act: { action: 'tap', target: 'Left Panel' }, done: panelOpen('left') },
      // An agent's slip: F7 1 does not close a panel on Escape.
      { act: { action: 'key', key: 'Escape' }, done: noPanel, probeOnly: true },
      // The panel's overlay is not in the outline; tapping the dimmed page beside the panel closes it.
      { act: { action: 'tap', target: 'SIDE PANELS' }, done: noPanel },
      { act: { action: 'tap', target: 'Right Panel' }, done: panelOpen('right') },
      { act: { action: 'tap', target: 'SIDE PANELS' }, done: `${noPanel} && ${on('index')}` },
    ],
  },
  {
    app: 'f7-tab-bar',
    name: 'switch through the tab bar and open a page in the second view',
    steps: [
      { act: { action: 'tap', target: 'Inbox' }, done: `document.querySelector('.tab.active')?.id === 'view-2'` },
      { act: { action: 'tap', target: '4 Upload' }, done: `document.querySelector('.tab.active')?.id === 'view-3'` },
      { act: { action: 'tap', target: 'Photos' }, done: `document.querySelector('.tab.active')?.id === 'view-4'` },
      // An agent's slip: the active tab tapped again.
      {
        act: { action: 'tap', target: 'Photos' },
        probe: `document.querySelector('.tab.active')?.id`,
        done: `document.querySelector('.tab.active')?.id !== before`,
        probeOnly: true,
      },
      { act: { action: 'tap', target: 'Information' }, done: `document.querySelector('.tab.active')?.id === 'view-1'` },
      { act: { action: 'tap', target: 'left' }, done: panelOpen('left') },
    ],
  },
  {
    app: 'f7-tab-bar',
    name: 'open About Us in the Inbox view and come back',
    steps: [
      { act: { action: 'tap', target: 'Inbox' }, done: `document.querySelector('.tab.active')?.id === 'view-2'` },
      {
        act: { action: 'tap', target: 'About Us' },
        done: `[...document.querySelectorAll('#view-2 .page')].some((p) => p.dataset.page === 'about' && !/page-on-(left|right)/.test(p.className))`,
      },
      {
        act: { action: 'tap', target: 'Back', index: 0 },
        done: `[...document.querySelectorAll('#view-2 .page')].every((p) => p.dataset.page !== 'about' || /page-on-right/.test(p.className))`,
      },
    ],
  },
  {
    app: 'f7-split-view-panel',
    name: 'open About and Services in the main view, and the right panel',
    steps: [
      { act: { action: 'tap', target: 'About' }, done: onSplit('about') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: onSplit('index') },
      { act: { action: 'tap', target: 'Services' }, done: onSplit('services') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: onSplit('index') },
      { act: { action: 'tap', target: 'right panel' }, done: panelOpen('right') },
    ],
  },
  {
    app: 'f7-template7',
    name: 'open a car from My Cars, then the contacts',
    steps: [
      { act: { action: 'tap', target: 'My Cars' }, done: on('cars') },
      {
        act: { action: 'tap', target: 'Ford Mustang' },
        done: `${on('car')} && /Mustang/.test(document.querySelector('.view-main .page[data-page="car"]').textContent)`,
      },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('cars') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
      { act: { action: 'tap', target: 'Contacts' }, done: on('contacts') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
      { act: { action: 'tap', target: 'Left Panel' }, done: panelOpen('left') },
    ],
  },
  {
    app: 'f7-inline-pages',
    name: 'open the inline form page, fill it in, and go back',
    steps: [
      { act: { action: 'tap', target: 'Form' }, done: on('form') },
      ...formSteps(),
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
    ],
  },
  {
    app: 'f7-inline-pages',
    name: 'visit the inline About and Services pages',
    steps: [
      { act: { action: 'tap', target: 'About' }, done: on('about') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
      { act: { action: 'tap', target: 'Services' }, done: on('services') },
      { act: { action: 'tap', target: 'Back', index: 0 }, done: on('index') },
    ],
  },
];
