/** What other areas (and the CLI's demo seed) may use of patients. */
export { createPatient, relationScope } from './operations.ts';
export { type PatientReadRow, type PatientRow, patientRelations, type RelationScope } from './read.ts';
export { Patient } from './schemas.ts';
export { ensurePointOfContact, findPatient, type PickedPatient, pickPatients, touchPatients } from './store.ts';
export { type PatientView, patientViews } from './views.ts';
