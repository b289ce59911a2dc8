import type { Area } from '../../http/area.ts';
import { tasksAuditActions, tasksErrors, tasksPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'tasks',
  routes,
  permissions: tasksPermissions,
  errors: tasksErrors,
  auditActions: tasksAuditActions,
};
