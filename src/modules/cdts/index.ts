/** What other areas (and the CLI's demo seed) may use of CDT records. */
export { createRecord } from './operations.ts';
