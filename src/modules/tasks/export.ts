import type { ExportSource } from '../../http/export.ts';
import { taskRelations } from './read.ts';
import { Task } from './schemas.ts';
import { taskViews } from './views.ts';

/** Tasks in the bulk export: each as GET /tasks/{id} shows it (assignee, watchers, comments). */
export const taskExport: ExportSource = {
  permission: 'TASK_EXPORT',
  summary: 'tasks',
  item: Task,
  table: 'tasks',
  patientsOf: { column: 'patient_id' },
  columns: (ctx) => taskRelations(ctx.scope.tenantId, 'r'),
  view: (_ctx, rows) => taskViews(rows),
};
