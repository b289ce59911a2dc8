/** What other areas may use of PDT records: contacts are backed by them. */
export type { PdtRecordRow } from '../../records/store.ts';
export { findPdtRecord } from './store.ts';
