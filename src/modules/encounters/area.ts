import type { Area } from '../../platform/area.ts';
import { encountersAuditActions, encountersErrors, encountersEvents, encountersPermissions } from './catalog.ts';
import { encounterSections } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'encounters',
  routes,
  permissions: encountersPermissions,
  errors: encountersErrors,
  auditActions: encountersAuditActions,
  events: encountersEvents,
  formation: encounterSections,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
