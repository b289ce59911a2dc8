import { type TSchema, Type } from 'typebox';
import { CsvList, InstanceParams, Uuid } from '../../wire/schemas.ts';

export const ExportParams = InstanceParams;

const start = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    "Where to begin: the previous page's `cursor.end`, sent back as it came, or any date-time (records updated at or after it). Absent: the oldest record.",
});
const pageSize = Type.Integer({ minimum: 1, maximum: 500, default: 500, description: 'Records a page, 1–500 (default 500).' });

export const ExportQuery = Type.Object({ start: Type.Optional(start), pageSize: Type.Optional(pageSize) });

export const PatientExportQuery = Type.Object({
  start: Type.Optional(start),
  pageSize: Type.Optional(pageSize),
  patientIds: Type.Optional(CsvList(Uuid, { maxItems: 1000, description: 'Only these patients’ records (comma-separated)' })),
});

export const Cursor = Type.Object({
  start: Type.Union([Type.String(), Type.Null()], { description: '`start` as it was sent; null when absent' }),
  end: Type.String({
    format: 'date-time',
    description: 'Send it back as `start` for the next page (it may carry more than 6 digits of fraction: keep them)',
  }),
  hasNext: Type.Boolean({ description: 'More records remain; false only at the end' }),
  pageSize: Type.Integer(),
});

/** `{data[], cursor}` of one resource's items. */
export function ExportPageOf(item: TSchema) {
  return Type.Object({ data: Type.Array(item), cursor: Cursor });
}
