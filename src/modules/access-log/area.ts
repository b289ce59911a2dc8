import type { Area } from '../../platform/area.ts';
import { accessLogEvents, accessLogPermissions } from './catalog.ts';
import { accessLogExport } from './export.ts';
import { accessLogJobs } from './jobs.ts';
import { accessLogPatientData } from './patient-data.ts';
import routes from './routes.ts';
import { accessLogSettings } from './settings.ts';

/** The access log's read side: the platform writes it (http/access-log.ts), this area shows it. */
export const area: Area = {
  name: 'access-log',
  routes,
  permissions: accessLogPermissions,
  events: accessLogEvents,
  settings: accessLogSettings,
  jobs: accessLogJobs,
  exports: { ACCESS_LOG: accessLogExport },
  patientData: accessLogPatientData,
};
