import type { Area } from '../../http/area.ts';
import { usersAuditActions, usersErrors, usersPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'users',
  routes,
  permissions: usersPermissions,
  errors: usersErrors,
  auditActions: usersAuditActions,
};
