import type { Area } from '../../platform/area.ts';
import { apiClientsAuditActions, apiClientsErrors, apiClientsEvents, apiClientsPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'api-clients',
  routes,
  permissions: apiClientsPermissions,
  errors: apiClientsErrors,
  auditActions: apiClientsAuditActions,
  events: apiClientsEvents,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
