import type { Area } from '../../platform/area.ts';
import { programsAuditActions, programsErrors, programsEvents, programsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'programs',
  routes,
  permissions: programsPermissions,
  errors: programsErrors,
  auditActions: programsAuditActions,
  events: programsEvents,
};
