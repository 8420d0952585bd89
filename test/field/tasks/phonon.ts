// Phonon 1.5.1 (kitchen sink and component examples). Phonon's navigator routes on `#!page`: the page
// shown is the `.app-page` element with class `app-active` (its tag is the page's name); a dialog or
// popover is open while it has class `active`; a tab is current when its `.tab-item` is `active`.
import type { FieldTask } from '../tasks.js';

const activePage = `document.querySelector('.app-page.app-active')?.tagName.toLowerCase()`;
const openDialogs = `[...document.querySelectorAll('.dialog.active')].filter((d) => d.getClientRects().length > 0)`;
const dialogText = `${openDialogs}.map((d) => d.textContent.replace(/\\s+/g, ' ').trim()).join('|')`;
const popoverOpen = (id: string) => `document.querySelector('#${id}')?.classList.contains('active') === true`;
const tabNumber = `Number(document.querySelector('pagetabs .tab-number')?.textContent)`;
const checkedInput = (sel: string) => `document.querySelector('.app-page.app-active ${sel}')?.checked === true`;

export const PHONON_TASKS: FieldTask[] = [
  {
    app: 'phonon-kitchen-sink',
    name: 'open Forms, fill them in, and go back',
    steps: [
      { act: { action: 'tap', target: 'Forms' }, done: `location.hash === '#!pageform' && ${activePage} === 'pageform'` },
      {
        act: { action: 'type', target: 'Full name', text: 'Alan Turing' },
        done: `document.querySelector('pageform input[placeholder="Full name"]').value === 'Alan Turing'`,
      },
      {
        act: { action: 'type', target: 'First Name', text: 'alan@example.com' },
        done: `document.querySelector('pageform #input-1').value === 'alan@example.com'`,
      },
      { act: { action: 'tap', target: 'Checkbox 2' }, done: `${checkedInput('input[name=checkbox2]')} && !${checkedInput('input[name=checkbox1]')}` },
      { act: { action: 'tap', target: 'Radio 2' }, done: `document.querySelectorAll('pageform input[type=radio]')[1].checked` },
      { act: { action: 'back' }, done: `${activePage} === 'home'` },
    ],
  },
  {
    app: 'phonon-kitchen-sink',
    name: 'open Tabs, switch tabs, then the Dialogs page and an alert',
    steps: [
      { act: { action: 'tap', target: 'Tabs' }, done: `${activePage} === 'pagetabs'` },
      // The tab shown is the title's number (Phonon moves the tab contents; it does not move the tab items' active class on a swipe).
      {
        act: { action: 'swipe', direction: 'left' },
        probe: tabNumber,
        done: `${tabNumber} === before + 1 && Math.abs(document.querySelectorAll('pagetabs .tab-content')[before].getBoundingClientRect().x) < 2`,
      },
      {
        act: { action: 'tap', target: 'HOME', or: ['Home'] },
        done: `${tabNumber} === 1 && Math.abs(document.querySelectorAll('pagetabs .tab-content')[0].getBoundingClientRect().x) < 2`,
      },
      { act: { action: 'back' }, done: `${activePage} === 'home'` },
      { act: { action: 'tap', target: 'Dialogs' }, done: `${activePage} === 'pagedialog'` },
      { act: { action: 'tap', target: 'SHOW ALERT' }, done: `${openDialogs}.length === 1` },
      { act: { action: 'tap', target: 'OK' }, done: `${openDialogs}.length === 0` },
    ],
  },
  {
    app: 'phonon-kitchen-sink',
    name: 'open Side Panels and Popovers from the list',
    steps: [
      { act: { action: 'tap', target: 'Side Panels' }, done: `${activePage} === 'pagesidepanel'` },
      { act: { action: 'back' }, done: `${activePage} === 'home'` },
      { act: { action: 'tap', target: 'Popovers' }, done: `${activePage} === 'pagepopover'` },
    ],
  },
  {
    app: 'phonon-forms',
    name: 'fill in the form and submit',
    steps: [
      {
        act: { action: 'type', target: 'Full name', text: 'Alan Turing' },
        done: `document.querySelector('input[placeholder="Full name"]').value === 'Alan Turing'`,
      },
      { act: { action: 'type', target: 'First Name', text: 'alan@example.com' }, done: `document.querySelector('#input-1').value === 'alan@example.com'` },
      { act: { action: 'tap', target: 'Checkbox 1' }, done: `document.querySelector('input[name=checkbox1]').checked` },
      { act: { action: 'tap', target: 'Checkbox 2' }, done: `document.querySelector('input[name=checkbox2]').checked` },
      { act: { action: 'tap', target: 'Checkbox 1' }, done: `!document.querySelector('input[name=checkbox1]').checked` },
      { act: { action: 'tap', target: 'Radio 1' }, done: `document.querySelectorAll('input[type=radio]')[0].checked` },
      {
        act: { action: 'tap', target: 'Radio 2' },
        done: `document.querySelectorAll('input[type=radio]')[1].checked && !document.querySelectorAll('input[type=radio]')[0].checked`,
      },
      // An agent's slip: Submit in this demo does nothing (no form, no handler).
      { act: { action: 'tap', target: 'SUBMIT' }, probe: 'location.href', done: 'location.href !== before', probeOnly: true },
    ],
  },
  {
    app: 'phonon-dialogs',
    name: 'confirm, prompt and the custom dialog',
    steps: [
      { act: { action: 'tap', target: 'SHOW CONFIRM' }, done: `${openDialogs}.length === 1` },
      { act: { action: 'tap', target: 'OK' }, done: `/Confirmed!/.test(${dialogText})` },
      { act: { action: 'tap', target: 'OK' }, done: `${openDialogs}.length === 0` },
      { act: { action: 'tap', target: 'SHOW PROMPT' }, done: `${openDialogs}.some((d) => d.querySelector('input'))` },
      {
        act: { action: 'type', target: '', text: 'Hello there' },
        pick: { role: 'textfield' },
        done: `${openDialogs}.some((d) => d.querySelector('input')?.value === 'Hello there')`,
      },
      { act: { action: 'tap', target: 'OK' }, done: `/Hello there/.test(${dialogText}) && /Inserted Value/.test(${dialogText})` },
      { act: { action: 'tap', target: 'OK' }, done: `${openDialogs}.length === 0` },
      { act: { action: 'tap', target: 'SHOW CUSTOM' }, done: `document.querySelector('#custom-dialog').classList.contains('active')` },
      { act: { action: 'tap', target: 'NO' }, done: `!document.querySelector('#custom-dialog').classList.contains('active')` },
    ],
  },
  {
    app: 'phonon-dialogs',
    page: 'examples/components/popovers-example/index.html',
    name: 'pick from the button popover and open the menu popover',
    steps: [
      { act: { action: 'tap', target: 'SELECT' }, done: popoverOpen('btn-popover') },
      {
        act: { action: 'tap', target: 'Item 3' },
        done: `!${popoverOpen('btn-popover')} && document.querySelector('.btn-popover').textContent.trim() === 'Item 3'`,
      },
      { act: { action: 'tap', target: '' }, pick: { role: 'button', near: 'Title' }, done: popoverOpen('my-popover') },
      { act: { action: 'tap', target: 'Settings' }, done: `!${popoverOpen('my-popover')}` },
      { act: { action: 'tap', target: 'Title' }, done: popoverOpen('my-popover') },
    ],
  },
  {
    app: 'phonon-lists',
    name: 'open a link row and a row action',
    steps: [
      { act: { action: 'tap', target: 'Link', index: 1 }, done: `location.hash === '#item'` },
      { act: { action: 'tap', target: 'Text', index: 0 }, done: `location.hash === '#action'` },
      // An agent's slip: a plain row with no link does nothing.
      { act: { action: 'tap', target: 'Item', index: 0 }, probe: 'location.hash', done: 'location.hash !== before', probeOnly: true },
      {
        act: { action: 'scroll', direction: 'down' },
        probe: `document.querySelector('.content').scrollTop`,
        done: `document.querySelector('.content').scrollTop > before`,
      },
    ],
  },
];
