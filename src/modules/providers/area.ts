import type { Area } from '../../platform/area.ts';
import { providersAuditActions, providersErrors, providersEvents, providersPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'providers',
  routes,
  permissions: providersPermissions,
  errors: providersErrors,
  auditActions: providersAuditActions,
  events: providersEvents,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
