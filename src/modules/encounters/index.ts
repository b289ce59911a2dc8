/** What other parts may use of encounters: the demo seed makes some. */

/** Invoices bill finalized encounters. */
export { type BillableEncounter, billableEncounter } from './billing.ts';
export { createEncounter } from './operations.ts';
