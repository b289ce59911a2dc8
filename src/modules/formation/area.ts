import type { Area } from '../../http/area.ts';
import { formationAuditActions, formationErrors, formationPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'formation',
  routes,
  permissions: formationPermissions,
  errors: formationErrors,
  auditActions: formationAuditActions,
};
