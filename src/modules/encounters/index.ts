/** What other parts may use of encounters: the demo seed makes some. */
export { createEncounter } from './operations.ts';
