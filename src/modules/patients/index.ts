/** What other areas (and the CLI's demo seed) may use of patients. */
export { createPatient } from './operations.ts';
export { Patient } from './schemas.ts';
export { ensurePointOfContact, findPatient, type PatientRow, touchPatients } from './store.ts';
export { type PatientView, patientViews } from './views.ts';
