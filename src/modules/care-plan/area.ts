import type { Area } from '../../platform/area.ts';
import { carePlanAuditActions, carePlanErrors, carePlanEvents, carePlanPermissions } from './catalog.ts';
import { carePlanExport } from './export.ts';
import { fhirCarePlan, fhirGoal } from './fhir.ts';
import { goalTemplatesSection } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'care-plan',
  routes,
  formation: [goalTemplatesSection],
  permissions: carePlanPermissions,
  errors: carePlanErrors,
  auditActions: carePlanAuditActions,
  events: carePlanEvents,
  exports: { CARE_PLAN: carePlanExport },
  fhir: [fhirCarePlan, fhirGoal],
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['care_plans', 'goals'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
