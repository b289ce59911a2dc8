/** What other areas may use of patient programs: the patient shows its enrolments. */
export { PatientProgram } from './schemas.ts';
export { compareNames, programView } from './views.ts';
