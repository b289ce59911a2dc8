import type { Area } from '../../platform/area.ts';
import { cdtsPermissions } from './catalog.ts';
import { cdtRecordExport } from './export.ts';
import { cdtFhirResources } from './fhir/index.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'cdts',
  routes,
  permissions: cdtsPermissions,
  exports: { CDT_RECORD: cdtRecordExport },
  fhir: cdtFhirResources,
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['cdt_records'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
