/** What other parts may use of the formation area: the CLI applies formation files. */
export { applyFormation } from './operations.ts';
