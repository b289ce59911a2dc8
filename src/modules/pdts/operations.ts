import type { Context } from '../../http/context.ts';
import { dataAndMeta, type Paging, type SortKey } from '../../http/pagination.ts';
import { Records } from '../../records/handle.ts';
import { ApiError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { patientViews, relationScope } from '../patients/index.ts';
import { lastUpdatedAt, listPdtRecords, type PdtRecordFilter, patientsOfPdtRecord } from './store.ts';
import { pdtRecordView } from './views.ts';

/** PDT records through the records kernel; each write is one unit of work with its audit row and event. */

export async function listPdt(ctx: Context, pdtName: string, filter: PdtRecordFilter, paging: Paging, sort: SortKey[]) {
  const { type } = await Records.of(ctx, 'PDT', pdtName);
  const [{ rows, total }, last] = await Promise.all([
    listPdtRecords(ctx.db, ctx.scope, pdtName, filter, paging, sort),
    lastUpdatedAt(ctx.db, ctx.scope, pdtName),
  ]);
  return {
    pdtName,
    lastUpdatedAt: last,
    records: dataAndMeta(
      rows.map((row) => pdtRecordView(row, type)),
      total,
      paging,
    ),
  };
}

export async function getPdtRecord(ctx: Context, pdtName: string, pdtId: string) {
  const records = await Records.of(ctx, 'PDT', pdtName);
  return pdtRecordView(await records.require(ctx.db, pdtId), records.type);
}

export async function createPdtRecord(ctx: Context, pdtName: string, body: Record<string, unknown>) {
  const records = await Records.of(ctx, 'PDT', pdtName);
  const values = records.values(body);
  const row = await write(ctx, (w) => records.create(w, values));
  return pdtRecordView(row, records.type);
}

/** 001: PATCH changes the fields given; `null` clears a field. A deleted record is read-only. */
export async function updatePdtRecord(ctx: Context, pdtName: string, pdtId: string, body: Record<string, unknown>) {
  const records = await Records.of(ctx, 'PDT', pdtName);
  const changes = records.values(body, { partial: true });
  const row = await write(ctx, async (w) => {
    const existing = await records.require(w.db, pdtId, { forUpdate: true });
    if (existing.deleted) {
      throw new ApiError('BAD_REQUEST', { pdtName, pdtId, deleted: true }, 'The PDT record is deleted and can no longer change');
    }
    return records.change(w, existing, changes);
  });
  return pdtRecordView(row, records.type);
}

/** DECISIONS §8: a soft delete answering 200 with the record; deleting it again changes nothing. */
export async function deletePdtRecord(ctx: Context, pdtName: string, pdtId: string) {
  const records = await Records.of(ctx, 'PDT', pdtName);
  const row = await write(ctx, async (w) => {
    const existing = await records.require(w.db, pdtId, { forUpdate: true });
    return existing.deleted ? existing : records.remove(w, existing, ['deleted']);
  });
  return pdtRecordView(row, records.type);
}

/** 001: the patients linked to the record through their contacts (page object). */
export async function patientsOfRecord(ctx: Context, pdtName: string, pdtId: string, paging: Paging) {
  const records = await Records.of(ctx, 'PDT', pdtName);
  await records.require(ctx.db, pdtId);
  const { rows, total } = await patientsOfPdtRecord(ctx.db, relationScope(ctx), pdtId, paging);
  return { content: await patientViews(ctx, rows), total };
}
