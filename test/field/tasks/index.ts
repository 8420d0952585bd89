// Every field task, by app. Each app's file says what its checks rest on.
import type { FieldTask } from '../tasks.js';
import { TODOMVC_APPS, todomvcTasks } from './todomvc.js';

export const FIELD_TASKS: FieldTask[] = [...TODOMVC_APPS.flatMap(todomvcTasks)];
