import type { AreaPlugin } from '../../http/plugin.ts';
import type { Area } from '../../platform/area.ts';
import { fhirCareTeam } from './care-team-fhir.ts';
import { patientsAuditActions, patientsErrors, patientsEvents, patientsPermissions } from './catalog.ts';
import { patientExport } from './export.ts';
import { fhirPatient } from './fhir.ts';
import { patientAttributesSection } from './formation.ts';
import { patientPatientData } from './patient-data.ts';
import { PURGE_PATIENT, runPurge } from './purge/operations.ts';
import purgeRoutes from './purge/routes.ts';
import routes from './routes.ts';

/** The patients' routes, and their purge's (docs/patient-purge.md). */
const patientRoutes: AreaPlugin = async (app, options) => {
  await app.register(routes, options);
  await app.register(purgeRoutes, options);
};

export const area: Area = {
  name: 'patients',
  routes: patientRoutes,
  formation: [patientAttributesSection],
  permissions: patientsPermissions,
  errors: patientsErrors,
  auditActions: patientsAuditActions,
  events: patientsEvents,
  jobs: {
    [PURGE_PATIENT]: {
      description: "Purges a patient: every area's records of theirs erased in one write, but what the law keeps",
      run: runPurge,
      // One write that rolls back whole: a failure is retried as is, then left DEAD for an administrator.
      maxAttempts: 5,
    },
  },
  patientData: patientPatientData,
  exports: { PATIENT: patientExport },
  fhir: [fhirPatient, fhirCareTeam],
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
