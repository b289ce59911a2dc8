import type { AreaPlugin } from '../../http/plugin.ts';
import type { Area } from '../../platform/area.ts';
import { bulkExportErrors, bulkExportPermissions } from './bulk/catalog.ts';
import { bulkExportJobs } from './bulk/job.ts';
import { bulkExportPatientData } from './bulk/patient-data.ts';
import bulkExportRoutes from './bulk/routes.ts';
import { bulkExportSettings } from './bulk/settings.ts';
import { fhirErrors } from './catalog.ts';
import notServedRoutes from './not-served.ts';
import provenanceRoutes from './provenance-routes.ts';
import routes, { FHIR_BASE } from './routes.ts';

/**
 * Read and search, and the bulk export (docs/fhir-bulk-export.md): each its own plugin, with its own
 * error handler; and what is not served under the base, whose prefix gives it that path's misses.
 */
const fhirRoutes: AreaPlugin = async (app, options) => {
  await app.register(routes, options);
  await app.register(provenanceRoutes, options);
  await app.register(bulkExportRoutes, options);
  await app.register(notServedRoutes, { ...options, prefix: FHIR_BASE });
};

/** FHIR R4 over the same store (docs/fhir.md): each instance's records as US Core resources, read-only. */
export const area: Area = {
  name: 'fhir',
  routes: fhirRoutes,
  permissions: bulkExportPermissions,
  errors: { ...fhirErrors, ...bulkExportErrors },
  jobs: bulkExportJobs,
  settings: bulkExportSettings,
  patientData: bulkExportPatientData,
  fixtures: new URL('./bulk/fixtures.ts', import.meta.url),
};
