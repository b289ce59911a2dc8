import type { Context } from '../../http/context.ts';
import { pageObject, parseSort } from '../../http/pagination.ts';
import { type CdtRecordView, cdtRecordView } from '../../records/cdt-view.ts';
import { Records } from '../../records/handle.ts';
import { listRecordPage, type RecordValuesChange, sortableRecordFields, updateRecordValues } from '../../records/list.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { filterConditions, selectedFields } from '../../records/query.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { ApiError, badField, errorBody, validationError } from '../../wire/errors.ts';
import { readInstant, uuidPattern } from '../../wire/schemas.ts';
import type { CdtBulkPatchBody, CdtListQueryInput } from './schemas.ts';
import { findCdtRecords, firstCdtRecordId } from './store.ts';

/** CDT records of the formation's types, through the records kernel; every write holds the patient. */

export async function listRecords(ctx: Context, patientId: string, cdtName: string, query: CdtListQueryInput) {
  const { type } = await Records.of(ctx, 'CDT', cdtName);
  await requirePatient(ctx, patientId);
  const only = selectedFields(type.fields, query.fields);
  const contains = filterConditions(type.fields, query.filters ?? []);
  const sort = parseSort(query.sort, sortableRecordFields(type.fieldNames));
  const paging = { page: query.page, size: query.size };
  const { rows, total } = await listRecordPage(ctx.db, ctx.scope, {
    cdtName,
    patientId,
    paging,
    sort,
    contains,
    ...(query.dateStart ? { createdFrom: readInstant(query.dateStart) } : {}),
    ...(query.dateEnd ? { createdBefore: readInstant(query.dateEnd) } : {}),
  });
  const content = rows.map((row) => cdtRecordView(row, type.fieldNames, only));
  return { name: cdtName, data: pageObject(content, total, paging, sort.length > 0) };
}

export async function getRecord(ctx: Context, patientId: string, cdtName: string, id: string) {
  const records = await Records.of(ctx, 'CDT', cdtName);
  await requirePatient(ctx, patientId);
  return cdtRecordView(await records.require(ctx.db, id, { patientId }), records.type.fieldNames);
}

export async function createRecord(
  ctx: Context,
  patientId: string,
  cdtName: string,
  body: Record<string, unknown>,
): Promise<CdtRecordView> {
  const records = await Records.of(ctx, 'CDT', cdtName);
  const { single, fieldNames } = records.type;
  // A SINGLE_RECORD type's writers under one patient go one at a time, so two cannot both find none.
  const serialize = single ? { serialize: `cdt/${cdtName}` } : {};
  return withPatient(
    ctx,
    patientId,
    async (w) => {
      const values = records.values(body);
      if (single) {
        // DECISIONS §6: a SINGLE_RECORD type holds at most one record per patient.
        const existing = await firstCdtRecordId(w.db, ctx.scope, patientId, cdtName);
        if (existing) {
          throw new ApiError(
            'DUPLICATE_VALUE',
            { patientId, cdtName, cdtRecordId: existing },
            `${cdtName} is a SINGLE_RECORD type and the patient already has a record of it`,
          );
        }
      }
      return cdtRecordView(await records.create(w, values, { patientId }), fieldNames);
    },
    serialize,
  );
}

export async function updateRecord(
  ctx: Context,
  patientId: string,
  cdtName: string,
  id: string,
  body: Record<string, unknown>,
): Promise<CdtRecordView> {
  const records = await Records.of(ctx, 'CDT', cdtName);
  return withPatient(ctx, patientId, async (w) => {
    const row = await records.require(w.db, id, { patientId, forUpdate: true });
    const changes = records.values(body, { partial: true });
    return cdtRecordView(await records.change(w, row, changes), records.type.fieldNames);
  });
}

export async function deleteRecord(ctx: Context, patientId: string, cdtName: string, id: string): Promise<void> {
  const records = await Records.of(ctx, 'CDT', cdtName);
  await withPatient(ctx, patientId, async (w) => {
    await records.remove(w, await records.require(w.db, id, { patientId, forUpdate: true }));
  });
}

type RowOutcome = { change: RecordValuesChange } | { error: ApiError };

/**
 * DECISIONS §7 bulk PATCH. Every row is checked first; a row that fails (400 bad id or values,
 * 404 unknown record) is reported and not written, and the rows that pass are written together
 * in one transaction. So one bad row never stops the good ones, and good rows are all or nothing.
 */
export async function bulkUpdateRecords(ctx: Context, patientId: string, cdtName: string, body: CdtBulkPatchBody) {
  const records = await Records.of(ctx, 'CDT', cdtName);
  const notFound = (id: string) => records.notFound(id, { patientId });
  return withPatient(ctx, patientId, async (w) => {
    const ids = [...new Set(body.rows.map((row) => row.id).filter((id) => uuidPattern.test(id)))];
    const existing = new Set((await findCdtRecords(w.db, ctx.scope, patientId, cdtName, ids)).map((row) => row.id));
    const seen = new Set<string>();
    const outcomes: RowOutcome[] = body.rows.map((row, index) => {
      const path = `body.rows.${index}`;
      if (!uuidPattern.test(row.id)) return { error: badField(`${path}.id`, 'must be a uuid') };
      const id = row.id.toLowerCase();
      if (seen.has(id)) return { error: badField(`${path}.id`, 'is listed more than once') };
      seen.add(id);
      if (!existing.has(id)) return { error: notFound(row.id) };
      const { values, problems } = records.check(row, { partial: true, path: `${path}.jsonBody` });
      return problems.length > 0 ? { error: validationError(problems) } : { change: { id, values } };
    });
    const changes = outcomes.flatMap((outcome) => ('change' in outcome ? [outcome.change] : []));
    // Written in one statement; the kernel's audit names each record written.
    const written = await updateRecordValues(w, ctx.scope, patientId, cdtName, records.version, changes);
    const updated = new Map<string, CdtRecordRow>(written.map((row) => [row.id, row]));
    records.changed(
      w,
      'UPDATED',
      ...changes
        .filter((change) => updated.has(change.id))
        .map((change) => ({ id: change.id, patientId, changedFields: Object.keys(change.values) })),
    );
    return {
      rows: body.rows.map((row, index) => {
        const outcome = outcomes[index]!;
        const saved = 'change' in outcome ? updated.get(outcome.change.id) : undefined;
        const error = 'error' in outcome ? outcome.error : saved ? undefined : notFound(row.id);
        return {
          id: row.id,
          jsonBody: row.jsonBody ?? null,
          result: error
            ? { status: error.status, content: errorBody(error) }
            : { status: 200, content: cdtRecordView(saved!, records.type.fieldNames) },
        };
      }),
    };
  });
}
