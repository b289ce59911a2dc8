import type { Area } from '../../http/area.ts';
import { assessmentsAuditActions, assessmentsErrors, assessmentsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'assessments',
  routes,
  permissions: assessmentsPermissions,
  errors: assessmentsErrors,
  auditActions: assessmentsAuditActions,
};
