import type { Area } from '../../platform/area.ts';
import { contactsAuditActions, contactsErrors, contactsEvents, contactsPermissions } from './catalog.ts';
import { contactPatientData } from './patient-data.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'contacts',
  routes,
  permissions: contactsPermissions,
  errors: contactsErrors,
  auditActions: contactsAuditActions,
  events: contactsEvents,
  patientData: contactPatientData,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
