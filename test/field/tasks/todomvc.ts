// TodoMVC tasks, the same for every framework's implementation: they share the specification's
// markup (.new-todo, .todo-list li, .filters; older versions, as several here, use ids: #new-todo,
// #todo-list), so the checks hold whatever renders it. Rows hidden by a filter may stay in the DOM (some implementations hide
// them with CSS), so checks count rows a user can see.
import type { FieldStep, FieldTask } from '../tasks.js';

const FIELD = 'What needs to be done?';
const rows = `[...document.querySelectorAll('.todo-list li, #todo-list li')]`;
const shown = `${rows}.filter((li) => li.getClientRects().length > 0)`;
const titled = (t: string) => `${rows}.find((li) => li.textContent.trim() === ${JSON.stringify(t)})`;

function add(title: string): FieldStep[] {
  return [
    { act: { action: 'type', target: FIELD, text: title }, done: `document.querySelector('.new-todo, #new-todo').value === ${JSON.stringify(title)}` },
    {
      act: { action: 'key', key: 'Enter' },
      probe: `${rows}.length`,
      done: `${rows}.length === before + 1 && !!${titled(title)} && document.querySelector('.new-todo, #new-todo').value === ''`,
    },
  ];
}

export const TODOMVC_APPS = [
  'todomvc-vanillajs',
  'todomvc-react',
  'todomvc-vue',
  'todomvc-angularjs',
  'todomvc-backbone',
  'todomvc-emberjs',
  'todomvc-knockoutjs',
  'todomvc-mithril',
  'todomvc-dojo',
  'todomvc-canjs',
];

export function todomvcTasks(app: string): FieldTask[] {
  return [
    {
      app,
      name: 'add three to-dos, complete one, filter, and clear it',
      steps: [
        ...add('Buy milk'),
        ...add('Walk dog'),
        ...add('Pay rent'),
        {
          act: { action: 'tap', target: '' },
          pick: { role: 'checkbox', near: 'Walk dog' },
          done: `${titled('Walk dog')}?.classList.contains('completed') === true`,
        },
        { act: { action: 'tap', target: 'Active', role: 'link' }, done: `${shown}.length === 2 && !${shown}.some((li) => li.classList.contains('completed'))` },
        { act: { action: 'tap', target: 'Completed', role: 'link' }, done: `${shown}.length === 1 && ${shown}[0].textContent.trim() === 'Walk dog'` },
        { act: { action: 'tap', target: 'All', role: 'link' }, done: `${shown}.length === 3` },
        { act: { action: 'tap', target: 'Clear completed' }, done: `${rows}.length === 2 && !${titled('Walk dog')}` },
      ],
    },
    {
      app,
      name: 'complete every to-do at once, then reopen one',
      steps: [
        ...add('Call Alice'),
        ...add('Water plants'),
        {
          act: { action: 'tap', target: '' },
          pick: { role: 'checkbox' },
          done: `${rows}.length === 2 && ${rows}.every((li) => li.classList.contains('completed'))`,
        },
        {
          act: { action: 'tap', target: '' },
          pick: { role: 'checkbox', near: 'Call Alice' },
          done: `!${titled('Call Alice')}.classList.contains('completed') && ${titled('Water plants')}.classList.contains('completed')`,
        },
        { act: { action: 'tap', target: 'Active', role: 'link' }, done: `${shown}.length === 1 && ${shown}[0].textContent.trim() === 'Call Alice'` },
        // An agent's slip: Enter in the empty field adds nothing (TodoMVC ignores a blank title).
        { act: { action: 'key', key: 'Enter' }, probe: `${rows}.length`, done: `${rows}.length === before + 1`, probeOnly: true },
      ],
    },
  ];
}
