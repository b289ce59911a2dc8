/** What other parts may use of the formation area: the CLI applies formation files; FHIR's address parameter of what has none. */
export { applyFormation } from './operations.ts';
