import type { Area } from '../../platform/area.ts';
import { encountersAuditActions, encountersErrors, encountersEvents, encountersPermissions } from './catalog.ts';
import { encounterCommentExport, encounterDispositionExport, encounterExport } from './export.ts';
import { fhirEncounter } from './fhir.ts';
import { encounterSections } from './formation.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'encounters',
  routes,
  permissions: encountersPermissions,
  errors: encountersErrors,
  auditActions: encountersAuditActions,
  events: encountersEvents,
  exports: {
    ENCOUNTER: encounterExport,
    ENCOUNTER_COMMENT: encounterCommentExport,
    ENCOUNTER_DISPOSITION: encounterDispositionExport,
  },
  fhir: [fhirEncounter],
  formation: encounterSections,
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['encounter_comments'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
