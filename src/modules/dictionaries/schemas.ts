import { Type } from 'typebox';
import { DateTime, InstanceParams, JsonObject, Nullable, Uuid } from '../../wire/schemas.ts';

/** The wire contract of dictionary values (001 "Dictionary and dictionary record"; PROD-SHAPES "Dictionary record"). */

export const DictionaryParams = Type.Object({ ...InstanceParams.properties, dictionaryName: Type.String() });
export const DictionaryRecordParams = Type.Object({ ...DictionaryParams.properties, recordId: Uuid });

export const DictionaryRecord = Type.Object({
  id: Uuid,
  createdAt: DateTime,
  updatedAt: DateTime,
  fullValue: Type.String({ description: 'The values joined by spaces, in field-name order' }),
  deleted: Type.Boolean(),
  values: JsonObject,
});

export const DictionaryValues = Type.Object({
  dictionaryName: Type.String(),
  lastUpdatedAt: Nullable(DateTime),
  records: Type.Array(DictionaryRecord),
});

export const DictionaryQuery = Type.Object({
  showDeleted: Type.Optional(Type.Boolean({ description: 'List soft-deleted records too (DECISIONS §8)' })),
});

/** One record to write: its values under `values` (as read), or flat; other keys are ignored. */
export const DictionaryRecordBody = Type.Record(Type.String(), Type.Unknown(), {
  description: '`{values: {...}}`: the values of the dictionary fields. Read-only keys sent back are ignored.',
});

export const DictionaryRecordsBody = Type.Object({ records: Type.Array(DictionaryRecordBody) });
