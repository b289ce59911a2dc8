import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { DOCUMENT_SUMMARY } from './types.ts';

/** The document type records of a summary: CDT records whose source is the summary (1:1 by rule). */
export function typeRecordsOf(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  summaryId: string,
  options: { forUpdate?: boolean } = {},
): Promise<CdtRecordRow[]> {
  let query = db
    .selectFrom('cdt_records')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('source_id', '=', summaryId)
    .where('source_name', '=', DOCUMENT_SUMMARY)
    .where('instance_id', '=', scope.instanceId)
    .where('patient_id', '=', patientId);
  if (options.forUpdate) query = query.forUpdate();
  return query.execute();
}
