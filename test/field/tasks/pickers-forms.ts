// The single-page form and picker demos: iScroll 5.2.0's forms demo (a list scrolled by iScroll's
// transform, read from the page's `myScroll`), Topcoat 0.7.5's mobile demo (plain inputs, a slide
// menu that adds `open` to #site), mobile-select 1.4.0 (a wheel sheet `.ms-mobile-select.ms-show` that
// writes the choice into its trigger) and rolldate 3.1.3 (a date sheet `.rolldate-container` that
// writes the date into its input).
import type { FieldTask } from '../tasks.js';

const iscrollY = `(-window.myScroll.y)`;
const inIscrollView = (text: string) =>
  `(() => { const li = [...document.querySelectorAll('#scroller li')].find((l) => l.textContent.trim() === ${JSON.stringify(text)}); const r = li.getBoundingClientRect(); const w = document.querySelector('#wrapper').getBoundingClientRect(); return r.top + r.height / 2 > w.top && r.top + r.height / 2 < w.bottom; })()`;
const msOpen = `[...document.querySelectorAll('.ms-mobile-select')].some((m) => m.classList.contains('ms-show'))`;
/** Where the open sheet's first wheel stands. */
const wheel = `document.querySelector('.ms-mobile-select.ms-show .ms-select-container')?.style.transform`;
const rdOpen = `[...document.querySelectorAll('.rolldate-container')].some((c) => c.getClientRects().length > 0 && !/rolldate-dim|hide/.test(c.className))`;
/** The element's centre is on screen. */
const centred = (el: string) =>
  `(() => { const r = (${el}).getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`;
const topcoat = (sel: string, i = 0) => `document.querySelectorAll(${JSON.stringify(sel)})[${i}]`;

export const PICKER_FORM_TASKS: FieldTask[] = [
  {
    app: 'iscroll-forms',
    name: 'fill the controls inside the iScroll list and scroll to its end',
    steps: [
      {
        act: { action: 'type', target: '', text: 'hello' },
        pick: { role: 'textfield' },
        done: `document.querySelector('#scroller input[type=text]').value === 'hello'`,
      },
      { act: { action: 'tap', target: '' }, pick: { role: 'checkbox' }, done: `document.querySelector('#scroller input[type=checkbox]').checked` },
      { act: { action: 'tap', target: '' }, pick: { role: 'radio' }, done: `document.querySelector('#scroller input[type=radio]').checked` },
      { act: { action: 'scroll', direction: 'down' }, probe: iscrollY, done: `${iscrollY} > before` },
      { act: { action: 'scroll', to: 'Pretty row 40' }, done: inIscrollView('Pretty row 40') },
      // 3000 pt up is more than the list has above: the user means back to (or near) its top.
      { act: { action: 'scroll', direction: 'up', distance: 3000 }, probe: iscrollY, done: `${iscrollY} === 0 || ${iscrollY} <= before - 1000` },
      // An agent's slip: a row is plain text.
      {
        act: { action: 'tap', target: 'Pretty row 2' },
        probe: 'document.activeElement?.tagName',
        done: `document.activeElement?.tagName !== before`,
        probeOnly: true,
      },
    ],
  },
  {
    app: 'topcoat-mobile',
    name: 'use the code toggle, checkbox, search, switch, text input and radios, top to bottom',
    steps: [
      {
        act: { action: 'tap', target: 'Show code snippets', index: 0 },
        done: `document.querySelectorAll('.showcode')[0].firstChild.textContent === 'Hide code snippets'`,
      },
      {
        act: { action: 'tap', target: 'Hide code snippets' },
        done: `document.querySelectorAll('.showcode')[0].firstChild.textContent === 'Show code snippets'`,
      },
      // An agent's slip: the second Button is disabled.
      {
        act: { action: 'tap', target: 'Button', index: 1 },
        probe: 'document.activeElement?.outerHTML',
        done: `document.activeElement?.outerHTML !== before`,
        probeOnly: true,
      },
      { act: { action: 'scroll', to: 'Default' }, done: centred(topcoat('.topcoat-checkbox')) },
      { act: { action: 'tap', target: 'Default' }, done: `${topcoat('.topcoat-checkbox input')}.checked` },
      { act: { action: 'tap', target: 'Disabled', role: 'checkbox' }, done: `${topcoat('.topcoat-checkbox input', 1)}.checked`, probeOnly: true },
      { act: { action: 'scroll', to: 'search', maxScrolls: 40 }, done: centred(topcoat('.topcoat-search-input')) },
      { act: { action: 'type', target: 'search', index: 0, text: 'buttons' }, done: `${topcoat('.topcoat-search-input')}.value === 'buttons'` },
      { act: { action: 'scroll', direction: 'down' }, probe: 'scrollY', done: 'scrollY > before' },
      {
        act: { action: 'tap', target: '' },
        pick: { role: 'checkbox', unnamed: true },
        probe: `[...document.querySelectorAll('.topcoat-switch__input')].map((i) => i.checked).join()`,
        done: `[...document.querySelectorAll('.topcoat-switch__input')].map((i) => i.checked).join() !== before`,
      },
      { act: { action: 'scroll', to: 'text', maxScrolls: 40 }, done: centred(topcoat('.topcoat-text-input')) },
      { act: { action: 'type', target: 'text', index: 0, text: 'Topcoat' }, done: `${topcoat('.topcoat-text-input')}.value === 'Topcoat'` },
      { act: { action: 'scroll', to: 'Left label', maxScrolls: 40 }, done: centred(topcoat('.topcoat-radio-button', 1)) },
      { act: { action: 'tap', target: 'Left label' }, done: `${topcoat('.topcoat-radio-button input', 1)}.checked` },
    ],
  },
  {
    app: 'topcoat-mobile',
    page: 'demo/topcoat-mobile-dark.html',
    name: 'open the slide menu and jump to a component, then reopen and close the menu',
    steps: [
      { act: { action: 'tap', target: '#slide-menu-button' }, done: `document.querySelector('#site').classList.contains('open')` },
      { act: { action: 'scroll', to: 'Range' }, done: centred(`[...document.querySelectorAll('#pageNav a')].find((x) => x.textContent.trim() === 'Range')`) },
      { act: { action: 'tap', target: 'Range' }, done: `location.hash === '#range' && !document.querySelector('#site').classList.contains('open')` },
      // The menu button is not fixed: after the jump it is far above; the agent scrolls back up (to within a pixel or two of the top: the drag ends 1 px short here).
      { act: { action: 'scroll', direction: 'up', distance: 20000 }, probe: 'scrollY', done: 'scrollY <= 2 && before > 1000' },
      { act: { action: 'tap', target: '#slide-menu-button' }, done: `document.querySelector('#site').classList.contains('open')` },
      { act: { action: 'tap', target: '#slide-menu-button' }, done: `!document.querySelector('#site').classList.contains('open')` },
    ],
  },
  {
    app: 'mobile-select-demo',
    name: 'turn the single wheel and confirm, open the double wheel and cancel it',
    steps: [
      { act: { action: 'tap', target: '单项选择' }, done: msOpen },
      { act: { action: 'swipe', target: '周三', direction: 'up' }, probe: wheel, done: `${wheel} !== before` },
      // The sheet's header is one button in the outline ("取消" · 单项选择, 确认): 确认 has no line of its own.
      { act: { action: 'tap', target: '确认' }, done: `!${msOpen} && document.querySelector('#trigger1').textContent.trim() !== '单项选择'` },
      { act: { action: 'tap', target: '取消' }, done: `!${msOpen}` },
      { act: { action: 'tap', target: '双项选择' }, done: msOpen },
      { act: { action: 'tap', target: '取消' }, done: `!${msOpen} && document.querySelector('#trigger2').textContent.trim() === '双项选择'` },
      { act: { action: 'tap', target: '附近-3000米' }, done: msOpen },
      { act: { action: 'tap', target: '取消' }, done: `!${msOpen}` },
    ],
  },
  {
    app: 'rolldate-demo',
    name: 'pick a month, then a full date, and cancel a time',
    steps: [
      { act: { action: 'tap', target: 'YYYY-MM' }, done: rdOpen },
      { act: { action: 'tap', target: '确认' }, done: `!${rdOpen} && /^\\d{4}-\\d{2}$/.test(document.querySelector('#date-group1-1').value)` },
      { act: { action: 'tap', target: 'YYYY-MM-DD' }, done: rdOpen },
      { act: { action: 'tap', target: '确认' }, done: `!${rdOpen} && /^\\d{4}-\\d{2}-\\d{2}$/.test(document.querySelector('#date-group1-2').value)` },
      { act: { action: 'tap', target: 'hh:mm' }, done: rdOpen },
      { act: { action: 'tap', target: '取消' }, done: `!${rdOpen} && document.querySelector('#date-group1-6').value === ''` },
      {
        act: { action: 'scroll', to: 'init、moveEnd、confirm、cancel' },
        done: `(() => { const r = document.querySelector('#date-group2-1').getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
    ],
  },
];
