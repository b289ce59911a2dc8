import type { Area } from '../../platform/area.ts';
import { calendarAuditActions, calendarErrors, calendarEvents, calendarPermissions } from './catalog.ts';
import { calendarEventExport } from './export.ts';
import { fhirAppointment } from './fhir.ts';
import { fhirLocation } from './location.ts';
import { calendarPatientData } from './patient-data.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'calendar',
  routes,
  permissions: calendarPermissions,
  errors: calendarErrors,
  auditActions: calendarAuditActions,
  events: calendarEvents,
  exports: { CALENDAR_EVENT: calendarEventExport },
  fhir: [fhirAppointment, fhirLocation],
  patientData: calendarPatientData,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
