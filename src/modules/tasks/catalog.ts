import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the tasks area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const tasksPermissions = {
  TASK_READ: 'Search and read tasks',
  TASK_UPDATE: 'Create and change tasks, their watchers and comments',
  TASK_EXPORT: 'Export tasks (API clients, /export/TASK)',
} as const;

export const tasksErrors = {
  TASK_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'Task not found' },
  TASK_COMMENT_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'Task comment not found' },
  TASK_WATCHER_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'The user does not watch this task' },
} as const;

/** The events its records are (DECISIONS §9). */
export const tasksEvents = {
  TASK: {
    description: 'Tasks, their watchers and comments included',
    subtypes: ['TASK_CREATED', 'TASK_UPDATED', 'TASK_STATUS_CHANGED'],
  },
} as const satisfies EventCatalog;

export const tasksAuditActions = {
  TASK_CREATED: { description: 'A task was created', events: ['TASK_CREATED'] },
  TASK_UPDATED: { description: 'A task was changed', events: ['TASK_UPDATED'] },
  TASK_WATCHER_ADDED: { description: 'A watcher was added to a task', events: ['TASK_UPDATED'] },
  TASK_WATCHER_REMOVED: { description: 'A watcher was removed from a task', events: ['TASK_UPDATED'] },
  TASK_COMMENT_ADDED: { description: 'A comment was added to a task', events: ['TASK_UPDATED'] },
  TASK_COMMENT_DELETED: { description: 'A task comment was deleted', events: ['TASK_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof tasksPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof tasksErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof tasksAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof tasksEvents> {}
}
