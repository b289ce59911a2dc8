import type { Area } from '../../platform/area.ts';
import { formationAuditActions, formationErrors, formationEvents, formationPermissions } from './catalog.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'formation',
  routes,
  permissions: formationPermissions,
  errors: formationErrors,
  auditActions: formationAuditActions,
  events: formationEvents,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
