import type { Area } from '../../http/area.ts';
import { patientsAuditActions, patientsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'patients',
  routes,
  permissions: patientsPermissions,
  auditActions: patientsAuditActions,
};
