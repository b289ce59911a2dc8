import type { Area } from '../../http/area.ts';
import { carePlanAuditActions, carePlanErrors, carePlanPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'care-plan',
  routes,
  permissions: carePlanPermissions,
  errors: carePlanErrors,
  auditActions: carePlanAuditActions,
};
