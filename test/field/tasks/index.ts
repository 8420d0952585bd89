// Every field task, by app. Each app's file says what its checks rest on.
import type { FieldTask } from '../tasks.js';
import { F7_TASKS } from './f7.js';
import { IONIC_TASKS } from './ionic.js';
import { JQM_TASKS } from './jqm.js';
import { JQWEUI_TASKS } from './jqweui.js';
import { MAUI_TASKS } from './mobile-angular-ui.js';
import { PHONON_TASKS } from './phonon.js';
import { PICKER_FORM_TASKS } from './pickers-forms.js';
import { RATCHET_TASKS } from './ratchet.js';
import { TODOMVC_APPS, todomvcTasks } from './todomvc.js';
import { WEUI_TASKS } from './weui.js';

export const FIELD_TASKS: FieldTask[] = [
  ...TODOMVC_APPS.flatMap(todomvcTasks),
  ...F7_TASKS,
  ...RATCHET_TASKS,
  ...WEUI_TASKS,
  ...JQWEUI_TASKS,
  ...JQM_TASKS,
  ...MAUI_TASKS,
  ...IONIC_TASKS,
  ...PHONON_TASKS,
  ...PICKER_FORM_TASKS,
];
