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
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['patient_programs'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
