import { type Static, Type } from 'typebox';
import { PageObject, PagingQuery } from '../../http/pagination.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { CsvList, JsonObject, Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';

/** The wire contract of CDT records (001 "Generic CDT record"; PROD-SHAPES "CDT record"; DECISIONS §7). */

export const CdtParams = Type.Object({ ...PatientParams.properties, cdtName: Type.String() });
export const CdtRecordParams = Type.Object({ ...CdtParams.properties, recordId: Uuid });

export const CdtListQuery = Type.Object({
  ...PagingQuery,
  fields: Type.Optional(
    CsvList(Type.String(), {
      description: 'Custom fields to include in jsonBody (system fields always are); default: all',
      maxItems: 500,
    }),
  ),
  filters: Type.Optional(
    CsvList(Type.String(), {
      description: '`field:value` conditions on custom fields, all of which must hold; the value is read by the field type',
      maxItems: 100,
    }),
  ),
  dateStart: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after' })),
  dateEnd: Type.Optional(Type.String({ format: 'date-time', description: 'Created before' })),
});
export type CdtListQueryInput = Static<typeof CdtListQuery>;

export const CdtList = Type.Object({ name: Type.String(), data: PageObject(CdtRecord) });

/** Create and PATCH take the field values flat, or under `jsonBody` as read (DECISIONS §7). */
export const CdtValuesBody = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Field values of the type. Unknown and read-only keys are ignored; null clears a field on PATCH.',
});

export const BulkRow = Type.Object({ id: Type.String(), jsonBody: Type.Optional(JsonObject) });
export const CdtBulkPatch = Type.Object({ rows: Type.Array(BulkRow, { maxItems: 1000 }) });
export type CdtBulkPatchBody = Static<typeof CdtBulkPatch>;

export const CdtBulkResult = Type.Object({
  rows: Type.Array(
    Type.Object({
      id: Type.String(),
      jsonBody: Nullable(JsonObject),
      result: Type.Object({
        status: Type.Integer({ description: '200, or 400/404 for a row that was not written' }),
        content: Type.Unknown({ description: 'The updated record, or the error array' }),
      }),
    }),
  ),
});
