import type { Area } from '../../platform/area.ts';
import { formationAuditActions, formationErrors, formationEvents, formationPermissions } from './catalog.ts';
import { fhirInstanceOrganization, fhirTenantOrganization } from './fhir.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'formation',
  routes,
  permissions: formationPermissions,
  errors: formationErrors,
  auditActions: formationAuditActions,
  events: formationEvents,
  // The instance first: an Organization's 404 is its.
  fhir: [fhirInstanceOrganization, fhirTenantOrganization],
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
