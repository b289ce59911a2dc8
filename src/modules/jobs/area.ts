import type { Area } from '../../platform/area.ts';
import { jobsAuditActions, jobsErrors, jobsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'jobs',
  routes,
  permissions: jobsPermissions,
  errors: jobsErrors,
  auditActions: jobsAuditActions,
};
