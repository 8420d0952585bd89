// Ionic 1.3.2 demos (modal, action sheet, popups, list options, collection-repeat contacts, radios).
// Ionic shows a modal inside `.modal-backdrop.active`, an action sheet inside
// `.action-sheet-backdrop.active` and a popup as `.popup-container.popup-showing`; each is removed or
// loses the class when dismissed. Radios are ion-radio inputs read by their checked state.
import type { FieldTask } from '../tasks.js';

const vis = (sel: string) =>
  `[...document.querySelectorAll(${JSON.stringify(sel)})].some((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')`;
const modalOpen = vis('.modal-backdrop.active .modal');
const sheetOpen = vis('.action-sheet-backdrop.active .action-sheet');
const popupOpen = vis('.popup-container.popup-showing .popup');
const popupTitle = `document.querySelector('.popup-container.popup-showing .popup-title')?.textContent.trim()`;
/** How far an Ionic scroll view has moved: its .scroll child's transform (JS scrolling) plus any native scroll. */
const ionicY = `(() => { const s = document.querySelector('ion-content .scroll'); return -new DOMMatrix(getComputedStyle(s).transform).m42 + s.parentElement.scrollTop; })()`;

export const IONIC_TASKS: FieldTask[] = [
  {
    app: 'ionic-dialogs',
    name: 'add a contact in the modal, then cancel a second one',
    steps: [
      { act: { action: 'tap', target: '' }, pick: { role: 'button', near: 'Contacts' }, done: modalOpen },
      {
        act: { action: 'type', target: 'First Name', role: 'textfield', text: 'Alyx' },
        done: `document.querySelector('.modal input[ng-model="newUser.firstName"]').value === 'Alyx'`,
      },
      {
        act: { action: 'type', target: 'Last Name', role: 'textfield', text: 'Vance' },
        done: `document.querySelector('.modal input[ng-model="newUser.lastName"]').value === 'Vance'`,
      },
      {
        act: { action: 'type', target: 'Email', role: 'textfield', text: 'alyx@example.com' },
        done: `document.querySelector('.modal input[ng-model="newUser.email"]').value === 'alyx@example.com'`,
      },
      { act: { action: 'tap', target: 'Create' }, done: `!${modalOpen}` },
      { act: { action: 'tap', target: '' }, pick: { role: 'button', near: 'Contacts' }, done: modalOpen },
      { act: { action: 'tap', target: 'Cancel' }, done: `!${modalOpen}` },
    ],
  },
  {
    app: 'ionic-dialogs',
    page: 'demos/old/actionsheet/index.html',
    name: 'open the action sheet, pick Share, then cancel it',
    steps: [
      { act: { action: 'tap', target: 'Show Actionsheet' }, done: sheetOpen },
      { act: { action: 'tap', target: 'Share' }, done: `!${sheetOpen}` },
      { act: { action: 'tap', target: 'Show Actionsheet' }, done: sheetOpen },
      { act: { action: 'tap', target: 'Cancel' }, done: `!${sheetOpen}` },
    ],
  },
  {
    app: 'ionic-dialogs',
    page: 'demos/old/popup/index.html',
    name: 'answer the confirm, prompt, password and alert popups',
    steps: [
      { act: { action: 'tap', target: 'Confirm' }, done: `${popupOpen} && ${popupTitle} === 'Consume Ice Cream'` },
      { act: { action: 'tap', target: 'OK' }, done: `!${popupOpen}` },
      { act: { action: 'tap', target: 'Prompt' }, done: `${popupOpen} && ${popupTitle} === 'ID Check'` },
      {
        act: { action: 'type', target: '', text: 'Gordon' },
        pick: { role: 'textfield' },
        done: `document.querySelector('.popup-container.popup-showing input')?.value === 'Gordon'`,
      },
      { act: { action: 'tap', target: 'OK' }, done: `!${popupOpen}` },
      { act: { action: 'tap', target: 'Password Prompt' }, done: `${popupOpen} && ${popupTitle} === 'Password Check'` },
      {
        act: { action: 'type', target: 'Your password', text: 'hunter2' },
        done: `document.querySelector('.popup-container.popup-showing input[type=password]')?.value === 'hunter2'`,
      },
      { act: { action: 'tap', target: 'Cancel' }, done: `!${popupOpen}` },
      { act: { action: 'tap', target: 'Alert' }, done: `${popupOpen} && ${popupTitle} === "Don't eat that!"` },
      { act: { action: 'tap', target: 'OK' }, done: `!${popupOpen}` },
    ],
  },
  {
    app: 'ionic-lists',
    name: 'open items of the list and come back',
    steps: [
      { act: { action: 'tap', target: 'Item 7' }, done: `location.hash === '#/item/7'` },
      { act: { action: 'back' }, done: `location.hash === ''` },
      { act: { action: 'tap', target: 'Item 10' }, done: `location.hash === '#/item/10'` },
      { act: { action: 'tap', target: 'Item 1' }, done: `location.hash === '#/item/1'` },
      // An agent's slip: this old demo's minus button sets show-delete, but its items have no delete buttons to show.
      {
        act: { action: 'tap', target: '' },
        pick: { role: 'button' },
        done: `[...document.querySelectorAll('.item-delete, ion-delete-button')].some((b) => b.getClientRects().length > 0)`,
        probeOnly: true,
      },
    ],
  },
  {
    app: 'ionic-contacts',
    name: 'filter the contacts, clear the filter, and scroll to the bottom',
    steps: [
      { act: { action: 'type', target: 'Filter contacts...', text: 'Adams' }, done: `document.querySelector('input[type=search]').value === 'Adams'` },
      { act: { action: 'scroll', direction: 'down' }, probe: ionicY, done: `${ionicY} > before` },
      { act: { action: 'clear', target: 'Filter contacts...' }, done: `document.querySelector('input[type=search]').value === ''` },
      { act: { action: 'tap', target: 'Scroll Bottom' }, probe: ionicY, done: `${ionicY} > before + 10000` },
    ],
  },
  {
    app: 'ionic-forms',
    name: 'choose a client-side and a server-side framework',
    steps: [
      {
        act: { action: 'tap', target: 'Ember' },
        done: `/Selected Value: em\\b/.test(document.body.textContent) || document.querySelectorAll('input[type=radio]')[2].checked`,
      },
      {
        act: { action: 'tap', target: 'Backbone' },
        done: `document.querySelectorAll('input[type=radio]')[0].checked && !document.querySelectorAll('input[type=radio]')[2].checked`,
      },
      { act: { action: 'tap', target: 'Python' }, done: `document.querySelectorAll('input[type=radio]')[5].checked` },
      {
        act: { action: 'tap', target: 'Java' },
        done: `document.querySelectorAll('input[type=radio]')[7].checked && !document.querySelectorAll('input[type=radio]')[5].checked`,
      },
      // An agent's slip: the radio already chosen, tapped again.
      {
        act: { action: 'tap', target: 'Java' },
        probe: `[...document.querySelectorAll('input[type=radio]')].findIndex((r) => r.checked && r.name === 'server-side')`,
        done: `[...document.querySelectorAll('input[type=radio]')].findIndex((r) => r.checked && r.name === 'server-side') !== before`,
        probeOnly: true,
      },
      {
        act: { action: 'tap', target: 'Serverside, Selected Value:' },
        probe: `document.body.innerHTML.length`,
        done: `document.body.innerHTML.length !== before`,
        probeOnly: true,
      },
    ],
  },
];
