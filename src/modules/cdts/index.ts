/** What other areas may use of CDT records: the list query, which system types stored as CDT records share. */
export { listCdtRecords, sortableCdtFields } from './store.ts';
