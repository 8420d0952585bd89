// Ratchet 2.0.4 example apps (iOS mail, movies, Android notes). Ratchet's push.js loads a linked page
// over XHR and swaps the `.content` and bars in place, with history.pushState, so the page a user
// is on is the `.bar-nav .title` text and location.pathname; a modal is shown when it has class
// `active`, a popover when it is displayed; a toggle is on when it has class `active`.
import type { FieldTask } from '../tasks.js';

const title = `document.querySelector('.bar-nav .title')?.textContent.trim()`;
const modalOpen = (id: string) => `document.querySelector('#${id}')?.classList.contains('active') === true`;
const modalShut = (id: string) => `document.querySelector('#${id}')?.classList.contains('active') === false`;
const val = (sel: string) => `document.querySelector(${JSON.stringify(sel)})?.value`;
const contentTop = `document.querySelector('.content').scrollTop`;

export const RATCHET_TASKS: FieldTask[] = [
  {
    app: 'ratchet-ios-mail',
    name: 'open a mailbox, go back, open another',
    steps: [
      { act: { action: 'tap', target: 'All inboxes' }, done: `location.pathname.endsWith('/inbox.html') && ${title} === 'All inboxes'` },
      { act: { action: 'scroll', direction: 'down' }, probe: contentTop, done: `${contentTop} > before` },
      // An agent's slip: the mails in this demo link to '#': opening one shows nothing new.
      {
        act: { action: 'tap', target: 'Email subject line here Lorem ipsum dolor sit amet...', index: 3 },
        probe: title,
        done: `${title} !== before`,
        probeOnly: true,
      },
      { act: { action: 'back' }, done: `location.pathname.endsWith('/index.html') && ${title} === 'Mailboxes'` },
      { act: { action: 'tap', target: 'Starred' }, done: `location.pathname.endsWith('/inbox.html')` },
      { act: { action: 'tap', target: '' }, pick: { role: 'link' }, done: `location.pathname.endsWith('/index.html') && ${title} === 'Mailboxes'` },
    ],
  },
  {
    app: 'ratchet-ios-mail',
    name: 'compose a message, cancel it, compose again and send',
    steps: [
      { act: { action: 'tap', target: '' }, pick: { role: 'link', near: 'Updated just now' }, done: modalOpen('composeModal') },
      { act: { action: 'type', target: 'To:', text: 'bob@example.com' }, done: `${val('#composeModal input[placeholder="To:"]')} === 'bob@example.com'` },
      { act: { action: 'type', target: 'Subject:', text: 'Lunch' }, done: `${val('#composeModal input[placeholder="Subject:"]')} === 'Lunch'` },
      { act: { action: 'tap', target: 'Cancel' }, done: modalShut('composeModal') },
      { act: { action: 'tap', target: '' }, pick: { role: 'link', near: 'Updated just now' }, done: modalOpen('composeModal') },
      { act: { action: 'type', target: 'From:', text: 'me@example.com' }, done: `${val('#composeModal input[placeholder="From:"]')} === 'me@example.com'` },
      {
        act: { action: 'type', target: '', text: 'See you at noon.' },
        pick: { role: 'textfield', unnamed: true },
        done: `${val('#composeModal textarea')} === 'See you at noon.'`,
      },
      { act: { action: 'tap', target: 'Send' }, done: modalShut('composeModal') },
    ],
  },
  {
    app: 'ratchet-movies',
    name: 'search, scroll to the last movie and choose a theater, then come back',
    steps: [
      { act: { action: 'type', target: 'Search', text: 'Skyfall' }, done: `${val('input[type=search]')} === 'Skyfall'` },
      { act: { action: 'scroll', direction: 'down' }, probe: contentTop, done: `${contentTop} > before` },
      {
        act: { action: 'tap', target: "Placeholder image for Wreck-it Ralph's poster Wreck-it Ralph Lorem ipsum dolor sit amet, consectetur.", index: 2 },
        done: `location.pathname.endsWith('/choose-theater.html') && ${title} === 'Argo'`,
      },
      { act: { action: 'type', target: 'Search theaters', text: 'AMC' }, done: `${val('input[type=search]')} === 'AMC'` },
      // An agent's slip: the theaters' Buy Tickets buttons link to '#' in this demo.
      { act: { action: 'tap', target: 'Buy Tickets', index: 2 }, probe: 'location.href', done: `location.href !== before`, probeOnly: true },
      { act: { action: 'tap', target: 'Back' }, done: `location.pathname.endsWith('/index.html') && ${title} === 'Movie finder'` },
    ],
  },
  {
    app: 'ratchet-movies',
    name: 'fill in the settings and switch both toggles',
    steps: [
      { act: { action: 'tap', target: '' }, pick: { role: 'link', near: 'Movie finder' }, done: modalOpen('settingsModal') },
      {
        act: { action: 'type', target: 'Full name', text: 'Grace Hopper' },
        done: `${val('#settingsModal input[placeholder="Full name"]')} === 'Grace Hopper'`,
      },
      {
        act: { action: 'type', target: 'Email', text: 'grace@example.com' },
        done: `${val('#settingsModal input[placeholder="Email"]')} === 'grace@example.com'`,
      },
      { act: { action: 'type', target: 'Username', text: 'ghopper' }, done: `${val('#settingsModal input[placeholder="Username"]')} === 'ghopper'` },
      // The toggles are not in the outline (a div each, with a delegated touch handler); the row's text is what an agent can tap.
      { act: { action: 'tap', target: 'Enable sounds' }, done: `document.querySelectorAll('#settingsModal .toggle')[0].classList.contains('active')` },
      { act: { action: 'tap', target: 'Parental controls' }, done: `document.querySelectorAll('#settingsModal .toggle')[1].classList.contains('active')` },
      // An agent's slip: Save settings has no handler in this demo; the modal stays.
      { act: { action: 'tap', target: 'Save settings' }, done: modalShut('settingsModal'), probeOnly: true },
      { act: { action: 'tap', target: '' }, pick: { role: 'link', unnamed: true }, done: modalShut('settingsModal') },
    ],
  },
  {
    app: 'ratchet-movies',
    page: 'docs/examples/app-movies/choose-theater.html',
    name: 'scroll to the last theater and go back to the movies',
    steps: [
      {
        act: { action: 'scroll', to: 'AMC 10' },
        done: `(() => { const li = [...document.querySelectorAll('.table-view-cell')].find((l) => l.textContent.includes('AMC 10')); const r = li.getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
      { act: { action: 'tap', target: 'Back' }, done: `location.pathname.endsWith('/index.html') && ${title} === 'Movie finder'` },
    ],
  },
  {
    app: 'ratchet-android-notes',
    name: 'write a note, open the navigation popover and pick an item',
    steps: [
      { act: { action: 'tap', target: '' }, pick: { role: 'link', unnamed: true }, done: modalOpen('composeModal') },
      { act: { action: 'type', target: 'Title', text: 'Groceries' }, done: `${val('#composeModal input')} === 'Groceries'` },
      {
        act: { action: 'type', target: '', text: 'eggs, flour' },
        pick: { role: 'textfield', unnamed: true },
        done: `${val('#composeModal textarea')} === 'eggs, flour'`,
      },
      { act: { action: 'tap', target: 'Save note' }, done: modalShut('composeModal') },
      { act: { action: 'tap', target: 'Notes' }, done: `getComputedStyle(document.querySelector('#navPopover')).display === 'block'` },
      // The popover's items have no handler in this demo: picking one leaves it open.
      { act: { action: 'tap', target: 'Item3' }, done: `getComputedStyle(document.querySelector('#navPopover')).display === 'none'`, probeOnly: true },
      // A tap beside the popover (on its backdrop) dismisses it without opening the note under the finger.
      {
        act: { action: 'tap', target: 'Note title goes here Lorem ipsum dolor sit amet...', index: 11 },
        done: `getComputedStyle(document.querySelector('#navPopover')).display === 'none' && location.pathname.endsWith('/index.html')`,
      },
      {
        act: { action: 'tap', target: 'Note title goes here Lorem ipsum dolor sit amet...', index: 1 },
        done: `location.pathname.endsWith('/choose-theater.html')`,
      },
    ],
  },
];
