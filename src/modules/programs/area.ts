import type { Area } from '../../http/area.ts';
import { programsAuditActions, programsErrors, programsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'programs',
  routes,
  permissions: programsPermissions,
  errors: programsErrors,
  auditActions: programsAuditActions,
};
