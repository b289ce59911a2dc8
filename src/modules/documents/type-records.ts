import type { Context } from '../../http/context.ts';
import { cdtRecordView } from '../../records/cdt-view.ts';
import { Records } from '../../records/handle.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { typeRecordsOf } from './store.ts';
import { DOCUMENT_SUMMARY, documentSummary, documentTypeRecord, findDocumentType } from './types.ts';

/**
 * 001 `/{id}/{docType}`: a summary's document type record, 1:1 with the summary, holding the
 * custom fields the formation gives the summary's type. It is a CDT record named by the type,
 * whose source is the summary (`source_type`/`source_name` DOCUMENT_SUMMARY/_document_summary).
 */

async function handles(ctx: Context, docType: string) {
  if (!findDocumentType(await ctx.formation(), docType)) {
    throw new ApiError('CDT_NOT_FOUND', { cdtName: docType }, `No document type "${docType}" in the formation`);
  }
  return {
    summaries: await Records.system(ctx, documentSummary),
    records: await Records.system(ctx, documentTypeRecord(docType)),
  };
}

function missing(records: Records<'CDT'>, patientId: string, summaryId: string) {
  return records.notFound(summaryId, { patientId, summaryId });
}

export async function getTypeRecord(ctx: Context, patientId: string, summaryId: string, docType: string) {
  const { summaries, records } = await handles(ctx, docType);
  await requirePatient(ctx, patientId);
  await summaries.require(ctx.db, summaryId, { patientId });
  const row = (await typeRecordsOf(ctx.db, ctx.scope, patientId, summaryId)).find((record) => record.cdt_name === docType);
  if (!row) throw missing(records, patientId, summaryId);
  return cdtRecordView(row, records.type.fieldNames);
}

export async function createTypeRecord(
  ctx: Context,
  patientId: string,
  summaryId: string,
  docType: string,
  body: Record<string, unknown>,
) {
  const { summaries, records } = await handles(ctx, docType);
  const values = records.values(body);
  return withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    const summary = await summaries.require(trx, summaryId, { patientId, forUpdate: true });
    const type = (summary.values as { type?: string }).type;
    if (type !== docType) {
      throw validationError([{ path: 'params.docType', message: `the document summary is of type "${type}"` }]);
    }
    const existing = await typeRecordsOf(trx, ctx.scope, patientId, summaryId);
    if (existing.length > 0) {
      throw new ApiError(
        'DUPLICATE_VALUE',
        { patientId, summaryId, cdtRecordId: existing[0]!.id },
        'The document summary already has its document type record',
      );
    }
    const source = { type: 'DOCUMENT_SUMMARY', id: summaryId, name: DOCUMENT_SUMMARY };
    return cdtRecordView(await records.create(w, values, { patientId, source }), records.type.fieldNames);
  });
}

/** PUT replaces the record's values; the record must exist (001). */
export async function replaceTypeRecord(
  ctx: Context,
  patientId: string,
  summaryId: string,
  docType: string,
  body: Record<string, unknown>,
) {
  const { summaries, records } = await handles(ctx, docType);
  const values = records.values(body);
  return withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    await summaries.require(trx, summaryId, { patientId });
    const rows = await typeRecordsOf(trx, ctx.scope, patientId, summaryId, { forUpdate: true });
    const row = rows.find((record) => record.cdt_name === docType);
    if (!row) throw missing(records, patientId, summaryId);
    return cdtRecordView(await records.replace(w, row, values), records.type.fieldNames);
  });
}

export async function deleteTypeRecord(ctx: Context, patientId: string, summaryId: string, docType: string): Promise<void> {
  const { summaries, records } = await handles(ctx, docType);
  await withPatient(ctx, patientId, async (w) => {
    const trx = w.db;
    await summaries.require(trx, summaryId, { patientId });
    const rows = await typeRecordsOf(trx, ctx.scope, patientId, summaryId, { forUpdate: true });
    const row = rows.find((record) => record.cdt_name === docType);
    if (!row) throw missing(records, patientId, summaryId);
    await records.remove(w, row);
  });
}
