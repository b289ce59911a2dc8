import { Type } from 'typebox';
import { JsonObject, Nullable, Uuid } from '../wire/schemas.ts';
import { jsonBody } from './json-body.ts';
import { type CdtRecordRow, cdtIdOf } from './store.ts';

/**
 * CDT records on the wire, for every area that stores them (the formation's CDTs, document
 * summaries, encounters): the schema, and the view of a row.
 */

export const CdtRecord = Type.Object(
  {
    id: Uuid,
    patientId: Uuid,
    cdtId: Uuid,
    version: Nullable(Type.Integer({ description: 'The formation version of the last write' })),
    jsonBody: JsonObject,
    cdtName: Type.String(),
  },
  {
    description:
      'jsonBody holds the system fields (external_guid, created_at, source_type, external_id, created_by_name, created_by, updated_by_name, updated_at, updated_by, id, source_id, source_name) and every field of the type, null when unset.',
  },
);

/** The wire record: `{id, patientId, cdtId, version, jsonBody, cdtName}`, cdtName last (PROD-SHAPES). */
export interface CdtRecordView {
  id: string;
  patientId: string;
  cdtId: string;
  version: number | null;
  jsonBody: Record<string, unknown>;
  cdtName: string;
}

/**
 * A row as the API shows it. `fieldNames` are the type's fields (null when unset); with `only`,
 * jsonBody carries the system keys and just those custom fields.
 */
export function cdtRecordView(row: CdtRecordRow, fieldNames: readonly string[], only?: readonly string[]): CdtRecordView {
  const values = row.values as Record<string, unknown>;
  const shown = only
    ? Object.fromEntries(only.filter((name) => Object.hasOwn(values, name)).map((name) => [name, values[name]]))
    : values;
  return {
    id: row.id,
    patientId: row.patient_id,
    cdtId: cdtIdOf(row.instance_id, row.cdt_name),
    version: row.version,
    jsonBody: jsonBody(row, only ?? fieldNames, shown),
    cdtName: row.cdt_name,
  };
}
