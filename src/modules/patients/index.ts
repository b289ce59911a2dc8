/** What other areas may use of patients. */
export { Patient } from './schemas.ts';
export { ensurePointOfContact, findPatient, type PatientRow, touchPatients } from './store.ts';
export { type PatientView, patientViews } from './views.ts';
