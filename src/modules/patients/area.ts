import type { Area } from '../../platform/area.ts';
import { fhirCareTeam } from './care-team-fhir.ts';
import { patientsAuditActions, patientsEvents, patientsPermissions } from './catalog.ts';
import { patientExport } from './export.ts';
import { fhirPatient } from './fhir.ts';
import { patientAttributesSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'patients',
  routes,
  formation: [patientAttributesSection],
  permissions: patientsPermissions,
  auditActions: patientsAuditActions,
  events: patientsEvents,
  exports: { PATIENT: patientExport },
  fhir: [fhirPatient, fhirCareTeam],
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
