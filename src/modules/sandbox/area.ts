import type { Area } from '../../platform/area.ts';
import { sandboxErrors, sandboxPermissions } from './catalog.ts';
import { sandboxPatientData } from './patient-data.ts';
import routes from './routes.ts';

export const area: Area = {
  name: 'sandbox',
  routes,
  permissions: sandboxPermissions,
  errors: sandboxErrors,
  patientData: sandboxPatientData,
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
