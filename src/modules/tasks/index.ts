/** What other areas may use of tasks: care plans create and show goal tasks (and export a page's in one read). */
export { createTask, newTaskRow, taskCreatedAudit } from './operations.ts';
export { readGoalTasks, type TaskReadRow, taskRelations } from './read.ts';
export { Task, TaskCreate, type TaskCreateBody, taskPriorities } from './schemas.ts';
export { insertTasks } from './store.ts';
export { taskViews } from './views.ts';
