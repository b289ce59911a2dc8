import type { NamesOf } from '../../wire/errors.ts';

/** What the tasks area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const tasksPermissions = {
  TASK_READ: 'Search and read tasks',
  TASK_UPDATE: 'Create and change tasks, their watchers and comments',
} as const;

export const tasksErrors = {
  TASK_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'Task not found' },
  TASK_COMMENT_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'Task comment not found' },
  TASK_WATCHER_NOT_FOUND: { status: 404, componentType: 'TASK', message: 'The user does not watch this task' },
} as const;

export const tasksAuditActions = {
  TASK_CREATED: 'A task was created',
  TASK_UPDATED: 'A task was changed',
  TASK_WATCHER_ADDED: 'A watcher was added to a task',
  TASK_WATCHER_REMOVED: 'A watcher was removed from a task',
  TASK_COMMENT_ADDED: 'A comment was added to a task',
  TASK_COMMENT_DELETED: 'A task comment was deleted',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof tasksPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof tasksErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof tasksAuditActions> {}
}
