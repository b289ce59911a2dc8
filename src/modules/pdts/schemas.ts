import { type Static, Type } from 'typebox';
import { DataAndMeta, PagingQuery } from '../../http/pagination.ts';
import { DateTime, Nullable, Uuid } from '../../wire/schemas.ts';

/** The wire contract of PDT (profile data type) records: 001 "PDT record", PROD-SHAPES "PDT record". */

export const PdtParams = Type.Object({
  tenantName: Type.String(),
  instanceName: Type.String(),
  pdtName: Type.String({ minLength: 1, maxLength: 100 }),
});
export const PdtRecordParams = Type.Object({ ...PdtParams.properties, pdtId: Uuid });

export const PdtRecord = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  fullValue: Type.String({ description: "The record's values joined by spaces, in the order of their field names" }),
  deleted: Type.Boolean(),
  pdtName: Type.String(),
  jsonBody: Type.Record(Type.String(), Type.Unknown(), {
    description: "System fields (snake_case) and the type's fields (null when unset); `id` is the record's id",
  }),
});
export type PdtRecordView = Static<typeof PdtRecord>;

export const PdtListQuery = Type.Object({
  ...PagingQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: 'A substring of fullValue, any case' })),
  showDeleted: Type.Boolean({ default: false, description: 'Also list soft-deleted records' }),
});

export const PdtList = Type.Object({
  pdtName: Type.String(),
  lastUpdatedAt: Nullable(DateTime),
  records: DataAndMeta(PdtRecord),
});

/**
 * Create and PATCH take a flat map of field values; values under `jsonBody` or `values` (a
 * record sent back as read) are read too, and other keys are ignored (DECISIONS §10).
 */
export const PdtValuesBody = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Field values of the type, by field name',
});

/** Only page and size: the patients come in the order they were created. */
export const PdtPatientsQuery = Type.Object({
  page: PagingQuery.page,
  size: PagingQuery.size,
});
