/** What other areas may use of patient programs. */
export { PatientProgram } from './schemas.ts';
export { shownEnrolments } from './store.ts';
export { enrolledPrograms } from './views.ts';
