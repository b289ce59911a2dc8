import type { Area } from '../../platform/area.ts';
import { assessmentsAuditActions, assessmentsErrors, assessmentsEvents, assessmentsPermissions } from './catalog.ts';
import { assessmentExport, pfaExport } from './export.ts';
import { fhirQuestionnaireResponse } from './fhir.ts';
import { assessmentsSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'assessments',
  routes,
  formation: [assessmentsSection],
  permissions: assessmentsPermissions,
  errors: assessmentsErrors,
  auditActions: assessmentsAuditActions,
  events: assessmentsEvents,
  exports: { ASSESSMENT: assessmentExport, PFA: pfaExport },
  fhir: [fhirQuestionnaireResponse],
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['assessment_records'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
