/** What other parts may use of encounters: the demo seed makes some; assessment records name one. */

/** Invoices bill finalized encounters. */
export { type BillableEncounter, billableEncounter } from './billing.ts';
export { createEncounter, requireEncounterOf } from './operations.ts';
