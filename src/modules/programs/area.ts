import type { Area } from '../../platform/area.ts';
import { programsAuditActions, programsErrors, programsEvents, programsPermissions } from './catalog.ts';
import { programsSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'programs',
  routes,
  formation: [programsSection],
  permissions: programsPermissions,
  errors: programsErrors,
  auditActions: programsAuditActions,
  events: programsEvents,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
