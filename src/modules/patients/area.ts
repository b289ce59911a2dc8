import type { Area } from '../../platform/area.ts';
import { patientsAuditActions, patientsEvents, patientsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'patients',
  routes,
  permissions: patientsPermissions,
  auditActions: patientsAuditActions,
  events: patientsEvents,
};
