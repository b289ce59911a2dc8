import type { Area } from '../../platform/area.ts';
import { usersAuditActions, usersErrors, usersEvents, usersPermissions } from './catalog.ts';
import { fhirPractitioner } from './fhir.ts';
import { fhirPractitionerRole } from './practitioner-role.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'users',
  routes,
  permissions: usersPermissions,
  errors: usersErrors,
  auditActions: usersAuditActions,
  events: usersEvents,
  fhir: [fhirPractitioner, fhirPractitionerRole],
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
