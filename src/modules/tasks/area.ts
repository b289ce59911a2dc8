import type { Area } from '../../platform/area.ts';
import { tasksAuditActions, tasksErrors, tasksEvents, tasksPermissions } from './catalog.ts';
import { taskExport } from './export.ts';
import { fhirTask } from './fhir.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'tasks',
  routes,
  permissions: tasksPermissions,
  errors: tasksErrors,
  auditActions: tasksAuditActions,
  events: tasksEvents,
  exports: { TASK: taskExport },
  fhir: [fhirTask],
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['tasks'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
