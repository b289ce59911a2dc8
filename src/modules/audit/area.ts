import type { Area } from '../../platform/area.ts';
import { auditPermissions } from './catalog.ts';
import { auditPatientData } from './patient-data.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'audit',
  routes,
  permissions: auditPermissions,
  patientData: auditPatientData,
};
