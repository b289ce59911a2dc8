import { jsonBody } from '../../records/json-body.ts';
import type { PdtRecordRow } from '../../records/store.ts';
import type { RecordType } from '../../records/types.ts';
import type { PdtRecordView } from './schemas.ts';

/** A PDT record as the API returns it (PROD-SHAPES "PDT record"); of its type, only the fields' names are read. */
export function pdtRecordView(row: PdtRecordRow, type: Pick<RecordType, 'fieldNames'>): PdtRecordView {
  const values = (row.values ?? {}) as Record<string, unknown>;
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    fullValue: row.full_value,
    deleted: row.deleted,
    pdtName: row.pdt_name,
    jsonBody: jsonBody(row, type.fieldNames, values),
  };
}
