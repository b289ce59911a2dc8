import type { PdtDefinition } from '../../formation/schemas.ts';
import { jsonBody } from '../../records/json-body.ts';
import type { PdtRecordView } from './schemas.ts';
import type { PdtRecordRow } from './store.ts';

/** A PDT record as the API returns it (PROD-SHAPES "PDT record"). */
export function pdtRecordView(row: PdtRecordRow, pdt: PdtDefinition): PdtRecordView {
  const values = (row.values ?? {}) as Record<string, unknown>;
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    fullValue: row.full_value,
    deleted: row.deleted,
    pdtName: row.pdt_name,
    jsonBody: jsonBody(
      row,
      pdt.fields.map((field) => field.name),
      values,
    ),
  };
}
